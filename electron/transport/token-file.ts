import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../engine/lib/atomic-file.ts';

export const TOKEN_FILE = 'headless-token';
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{24,512}$/;

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The headless token, kept in the data dir (0600) so a restarted engine answers the URL and the
 * cookies of tabs already open. `rotate` (or a missing or damaged file) makes a new one, which
 * revokes every URL handed out before. Called with the data dir lock held.
 */
export function loadOrCreateToken(dataDir: string, rotate: boolean): { token: string; created: boolean; path: string } {
  const path = join(dataDir, TOKEN_FILE);
  if (!rotate) {
    try {
      const existing = readFileSync(path, 'utf8').trim();
      if (TOKEN_PATTERN.test(existing)) return { token: existing, created: false, path };
    } catch {
      // absent or unreadable: a new token below
    }
  }
  const token = newToken();
  writeFileAtomic(path, `${token}\n`, 0o600);
  return { token, created: true, path };
}

/** The kept token without making one (for --print-token), or null when there is none yet. */
export function readKeptToken(dataDir: string): string | null {
  try {
    const t = readFileSync(join(dataDir, TOKEN_FILE), 'utf8').trim();
    return TOKEN_PATTERN.test(t) ? t : null;
  } catch {
    return null;
  }
}
