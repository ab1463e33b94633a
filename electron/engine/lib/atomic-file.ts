import { writeFileSync, renameSync, mkdirSync, openSync, fsyncSync, closeSync, rmSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** `<file>.<pid>.<ms>.tmp`: the writer's pid in the name lets a later start tell a crashed writer's leftover from a live one's. */
const TEMP_NAME = /\.(\d+)\.(\d+)\.tmp$/;

/**
 * Write temp + fsync + rename, so a crash leaves either the old file or the new one, never half of one.
 * Owner-only by default (settings, state, keys); pass 0o644 for files other users must read.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(tmp, data, { mode });
    const fd = openSync(tmp, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files a killed writer left in `dir` (kill -9 between write and rename), skipping
 * any whose writer is still running. Returns the names removed. A missing folder is nothing to do.
 */
export function removeStaleTemps(dir: string, isAlive: (pid: number) => boolean = processAlive): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid !== process.pid && isAlive(pid)) continue;
    try {
      rmSync(join(dir, name), { force: true });
      removed.push(name);
    } catch {
      // a folder by that name, or no permission: not ours to force
    }
  }
  return removed;
}
