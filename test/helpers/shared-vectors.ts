// The brief's reference vectors live in `shared/vectors/` beside the project (../shared from the repo root; from a
// git worktree nested one level deeper, the nearest ancestor that has it). Read-only; never copied into the repo.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

function findVectors(): string {
  let dir = dirname(ROOT);
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, 'shared', 'vectors');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`shared/vectors not found beside ${ROOT} or its parents: check out the brief's shared folder next to the project`);
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
