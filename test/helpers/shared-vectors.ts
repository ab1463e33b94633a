// The brief's reference vectors live in `shared/vectors/` beside the project (../shared from the repo root; from a
// git worktree nested one level deeper, the nearest ancestor that has it). A clone made anywhere else (CI's
// `git clone . "$(mktemp -d)"`) finds them beside the checkout it was cloned from (its local `origin`), or
// where ENGY_SHARED_DIR points. Read-only; never copied into the repo.
import { spawnSync } from 'node:child_process';
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

/** The checkout this one was cloned from, when that is a folder on this machine. */
function localOrigin(): string | null {
  const r = spawnSync('git', ['-C', ROOT, 'config', '--get', 'remote.origin.url'], { encoding: 'utf8' });
  const url = r.status === 0 ? r.stdout.trim().replace(/^file:\/\//, '') : '';
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
