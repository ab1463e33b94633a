import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { AppFailure } from '../../../shared/errors.ts';
import type { Disposable } from './disposable.ts';
import { dataPaths } from './paths.ts';

// One engine per data dir: two engines on one dir would both drive sglang, both open gateway legs
// under one worker name and race on the SQLite file.
//
// The authority is a lock the kernel holds for us: an exclusive SQLite transaction on
// `engine.lock.db` (an fcntl record lock on Linux and macOS, LockFileEx on Windows). The kernel
// drops it the instant the process dies, whatever its pid, pid namespace or hostname, so a
// container's engine (PID 1, a new hostname at every restart) killed -9 or OOM-killed never blocks
// the next start, and no pid or hostname is ever guessed at. `engine.lock` beside it is only a
// note naming the holder, for the refusal's sentence and `doctor`.
//
// Trap: an fcntl lock belongs to the process and any close of any descriptor on the same file
// drops it, so nothing else in the engine may open `engine.lock.db`.

export interface LockOwner {
  pid: number;
  /** ISO time the owner took the lock. */
  startedAt: string;
  hostname: string;
  /** Random per acquisition: release removes the note only if it is still ours. */
  token: string;
}

export interface InstanceLock extends Disposable {
  readonly path: string;
  readonly owner: LockOwner;
  release(): void;
}

export interface LockHost {
  pid: number;
  hostname: string;
  now: () => number;
}

export const defaultLockHost = (): LockHost => ({ pid: process.pid, hostname: osHostname(), now: () => Date.now() });

/** The file whose kernel lock decides; never opened by anything but this module. */
export const kernelLockPath = (root: string): string => `${dataPaths(root).lock}.db`;

function parseOwner(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0 && typeof o.startedAt === 'string' && typeof o.hostname === 'string' && typeof o.token === 'string') {
      return { pid: o.pid, startedAt: o.startedAt.slice(0, 40), hostname: o.hostname.slice(0, 255), token: o.token };
    }
  } catch {
    // a half-written or foreign note: the holder is then named without a pid
  }
  return undefined;
}

function readOwnerText(path: string): string | undefined {
  try {
    if (!lstatSync(path).isFile()) return undefined; // a link or folder is no note of ours
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The lock note's owner if it names one, for `doctor` and the error message. */
export function readInstanceLock(root: string): LockOwner | undefined {
  const text = readOwnerText(dataPaths(root).lock);
  return text === undefined ? undefined : parseOwner(text);
}

export function lockedMessage(owner: LockOwner, root: string, host: Pick<LockHost, 'hostname'>): string {
  const where = owner.hostname === host.hostname ? '' : ` on ${owner.hostname}`;
  return `Another engy panel engine (pid ${owner.pid}${where}, started ${owner.startedAt}) is using ${root}. Stop it, or give this one its own --data-dir.`;
}

function isBusy(e: unknown): boolean {
  const err = e as { errcode?: number; message?: string };
  // SQLITE_BUSY (5) and SQLITE_LOCKED (6), extended codes included
  return (typeof err.errcode === 'number' && [5, 6].includes(err.errcode & 0xff)) || /database is locked|database table is locked/.test(String(err.message));
}

/** Opens the lock database and takes its exclusive lock; undefined when another process holds it. */
function takeKernelLock(path: string): DatabaseSync | undefined {
  const db = new DatabaseSync(path, { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
    return db;
  } catch (e) {
    db.close();
    if (isBusy(e)) return undefined;
    throw e;
  }
}

/**
 * Takes the data dir's lock or throws AppFailure('data-dir-locked'), naming the holder from its
 * note. A lock no live process holds is always taken, whatever its note says.
 */
export function acquireInstanceLock(root: string, host: LockHost = defaultLockHost()): InstanceLock {
  const paths = dataPaths(root);
  const dbPath = kernelLockPath(root);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const held = takeKernelLock(dbPath);
  if (!held) {
    const owner = readInstanceLock(root);
    throw new AppFailure(
      'data-dir-locked',
      owner ? lockedMessage(owner, root, host) : `Another engy panel engine is using ${root} (it holds ${dbPath}). Stop it, or give this one its own --data-dir.`,
      owner ? JSON.stringify(owner) : undefined,
    );
  }
  const owner: LockOwner = { pid: host.pid, startedAt: new Date(host.now()).toISOString(), hostname: host.hostname, token: randomBytes(8).toString('hex') };
  try {
    // Written beside and renamed over: a crashed holder's note (or a link planted there) is replaced, never followed.
    const tmp = `${paths.lock}.${host.pid}.${owner.token}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(owner)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, paths.lock);
  } catch (e) {
    held.close();
    throw e;
  }
  return lockHandle(paths.lock, owner, held);
}

function lockHandle(path: string, owner: LockOwner, db: DatabaseSync): InstanceLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      const current = readOwnerText(path);
      if (current !== undefined && parseOwner(current)?.token === owner.token) rmSync(path, { force: true });
    } finally {
      // Closing drops the kernel lock; the file itself stays (unlinking it would let two engines lock two inodes).
      db.close();
    }
  };
  // A normal exit releases; a crash leaves a note the kernel lock has already outlived.
  process.on('exit', release);
  return { path, owner, release, dispose: release };
}
