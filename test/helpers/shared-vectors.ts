// The brief's reference vectors live in `shared/vectors/` beside the project (../shared from the repo root; from a
// git worktree nested one level deeper, the nearest ancestor that has it). A clone made anywhere else (CI's
// `git clone . "$(mktemp -d)"`) finds them beside the checkout it was cloned from (its local `origin`), or
// where ENGY_SHARED_DIR points. Read-only; never copied into the repo.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** `shared/vectors` beside `from` or one of its nearest ancestors. */
function besideOrAbove(from: string): string | null {
  let dir = dirname(from);
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, 'shared', 'vectors');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return null;
}

/**
 * The checkout this one was cloned from, when that is a folder on this machine. Read from `.git/config`
 * itself, not by running git: the unit lane starts no process (test/setup/unit-lane.ts).
 */
function localOrigin(): string | null {
  let config: string;
  try {
    config = readFileSync(join(ROOT, '.git', 'config'), 'utf8');
  } catch {
    return null; // a worktree (.git is a file) or no repository: the folders above decide
  }
  const section = /^\[remote "origin"\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(config)?.[1] ?? '';
  const url = (/^\s*url\s*=\s*(.+?)\s*$/m.exec(section)?.[1] ?? '').replace(/^file:\/\//, '');
  return url && isAbsolute(url) && existsSync(url) ? resolve(url) : null;
}

function findVectors(): string {
  const env = process.env.ENGY_SHARED_DIR;
  if (env && existsSync(join(env, 'vectors'))) return join(env, 'vectors');
  const found = besideOrAbove(ROOT);
  if (found) return found;
  const origin = localOrigin();
  const viaOrigin = origin ? besideOrAbove(origin) : null;
  if (viaOrigin) return viaOrigin;
  throw new Error(`shared/vectors not found beside ${ROOT}, its parents or its local origin: check out the brief's shared folder next to the project, or set ENGY_SHARED_DIR`);
}

export const SHARED_VECTORS = findVectors();

export function sharedVectorPath(...parts: string[]): string {
  return join(SHARED_VECTORS, ...parts);
}

export function readSharedJson<T>(...parts: string[]): T {
  return JSON.parse(readFileSync(sharedVectorPath(...parts), 'utf8')) as T;
}

export function readSharedBytes(...parts: string[]): Uint8Array {
  return new Uint8Array(readFileSync(sharedVectorPath(...parts)));
}

export function readSharedLines<T>(...parts: string[]): T[] {
  return readFileSync(sharedVectorPath(...parts), 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as T);
}
