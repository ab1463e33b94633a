import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { AppFailure } from '../../../shared/errors.ts';
import type { Disposable } from './disposable.ts';
import { dataPaths } from './paths.ts';

// One engine per data dir: two engines on one dir would both drive sglang, both open gateway legs
// under one worker name and race on the SQLite file. The lock is a file created with O_EXCL that
// names its owner, so a second engine can say who holds it, and a crashed owner's lock is reclaimed.

export interface LockOwner {
  pid: number;
  /** ISO time the owner took the lock. */
  startedAt: string;
  hostname: string;
  /** Random per acquisition: release removes the file only if it is still ours. */
  token: string;
  /** Linux boot id: a lock from before a reboot is stale even if its pid now names another process. */
  bootId?: string;
}

export interface InstanceLock extends Disposable {
  readonly path: string;
  readonly owner: LockOwner;
  release(): void;
}

export interface LockHost {
  pid: number;
  hostname: string;
  bootId: string | undefined;
  now: () => number;
  /** True when the pid is a live process on this host (EPERM counts as alive: someone else's process). */
  isAlive: (pid: number) => boolean;
}

export const defaultLockHost = (): LockHost => ({
  pid: process.pid,
  hostname: osHostname(),
  bootId: readBootId(),
  now: () => Date.now(),
  isAlive: (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
});

function readBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined; // macOS, Windows: pid liveness alone
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0 && typeof o.startedAt === 'string' && typeof o.hostname === 'string' && typeof o.token === 'string') {
      return { pid: o.pid, startedAt: o.startedAt, hostname: o.hostname, token: o.token, ...(typeof o.bootId === 'string' ? { bootId: o.bootId } : {}) };
    }
  } catch {
    // a half-written or foreign file: treated as stale below
  }
  return undefined;
}

function readOwnerText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The lock's owner if the file names one, for `doctor` and the error message. */
export function readInstanceLock(root: string): LockOwner | undefined {
  const text = readOwnerText(dataPaths(root).lock);
  return text === undefined ? undefined : parseOwner(text);
}

export function lockedMessage(owner: LockOwner, root: string, host: LockHost): string {
  const where = owner.hostname === host.hostname ? '' : ` on ${owner.hostname}`;
  return `Another engy panel engine (pid ${owner.pid}${where}, started ${owner.startedAt}) is using ${root}. Stop it, or give this one its own --data-dir.`;
}

function tryCreate(path: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Takes the data dir's lock or throws AppFailure('data-dir-locked'). A lock whose owner is gone
 * (same host, pid not alive; or an unreadable file older than a write) is reclaimed.
 */
export function acquireInstanceLock(root: string, host: LockHost = defaultLockHost()): InstanceLock {
  const path = dataPaths(root).lock;
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const owner: LockOwner = {
    pid: host.pid,
    startedAt: new Date(host.now()).toISOString(),
    hostname: host.hostname,
    token: randomBytes(8).toString('hex'),
    ...(host.bootId ? { bootId: host.bootId } : {}),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(path, owner)) return lockHandle(path, owner);
    const text = readOwnerText(path);
    if (text === undefined) continue; // released between our open and read: try again
    const held = parseOwner(text);
    if (held) {
      // A lock from another host (a data dir on NFS) cannot be checked: never steal it.
      const sameHost = held.hostname === host.hostname;
      const rebooted = sameHost && held.bootId !== undefined && host.bootId !== undefined && held.bootId !== host.bootId;
      const stale = sameHost && held.pid !== host.pid && (rebooted || !host.isAlive(held.pid));
      if (!stale) throw new AppFailure('data-dir-locked', lockedMessage(held, root, host), JSON.stringify(held));
    }
    // Reclaim: move the stale file aside (atomic, so of two reclaimers only one wins), then make
    // sure what we moved is what we judged stale; if another engine had just taken it, put it back.
    const aside = `${path}.stale.${host.pid}.${owner.token}`;
    try {
      renameSync(path, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    const moved = readOwnerText(aside);
    if (moved !== text) {
      try {
        renameSync(aside, path);
      } catch {
        // nothing better to do: the next attempt reads whatever is there now
      }
      continue;
    }
    rmSync(aside, { force: true });
  }
  const held = readInstanceLock(root);
  throw new AppFailure(
    'data-dir-locked',
    held ? lockedMessage(held, root, host) : `Could not take the lock on ${root} (${path}). Stop other engy panel engines using it, or give this one its own --data-dir.`,
  );
}

function lockHandle(path: string, owner: LockOwner): InstanceLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('exit', release);
    const current = readOwnerText(path);
    if (current !== undefined && parseOwner(current)?.token === owner.token) rmSync(path, { force: true });
  };
  // A normal exit (even process.exit from a handler) releases; a crash leaves a stale lock the next start reclaims.
  process.on('exit', release);
  return { path, owner, release, dispose: release };
}
