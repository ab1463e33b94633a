import { chmodSync, closeSync, fsyncSync, linkSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes a key file 0600 without ever replacing an existing one: the content goes to a temp file
 * (fsync'd), then link() publishes it — link fails with EEXIST instead of overwriting, so a lost
 * race can never destroy a key that was there first.
 * Returns false when the target already exists.
 */
export function writeKeyFileExclusive(path: string, content: string | Uint8Array): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    // umask may have narrowed the mode further; btwallet chmods explicitly too.
    chmodSync(tmp, 0o600);
    linkSync(tmp, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
}
