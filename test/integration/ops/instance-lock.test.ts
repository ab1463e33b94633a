import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireInstanceLock, defaultLockHost, readInstanceLock, type InstanceLock } from '../../../electron/engine/lib/instance-lock.ts';
import { dataPaths } from '../../../electron/engine/lib/paths.ts';
import { AppFailure } from '../../../shared/errors.ts';

const HOLDER = join(import.meta.dirname, '..', '..', 'fixtures', 'ops', 'hold-instance-lock.ts');
const children: ChildProcessWithoutNullStreams[] = [];
const locks: InstanceLock[] = [];

function startHolder(root: string): Promise<{ child: ChildProcessWithoutNullStreams; line: string }> {
  const child = spawn(process.execPath, [HOLDER, root], { stdio: 'pipe' });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({ child, line: out.slice(0, nl) });
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`holder exited ${code} before reporting`));
    });
  });
}

function exited(child: ChildProcessWithoutNullStreams): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

function tryAcquire(root: string): AppFailure | InstanceLock {
  try {
    const l = acquireInstanceLock(root);
    locks.push(l);
    return l;
  } catch (e) {
    if (e instanceof AppFailure) return e;
    throw e;
  }
}

afterEach(async () => {
  for (const l of locks.splice(0)) l.release();
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await exited(c);
  }
});

describe('instance lock (real processes)', () => {
  it('refuses a second engine on the same data dir, naming the holder, and allows another dir', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engy-lock-'));
    const { child, line } = await startHolder(root);
    expect(line).toBe(`locked ${child.pid}`);

    const second = tryAcquire(root);
    expect(second).toBeInstanceOf(AppFailure);
    const f = second as AppFailure;
    expect(f.code).toBe('data-dir-locked');
    expect(f.message).toMatch(new RegExp(`^Another engy panel engine \\(pid ${child.pid}, started \\d{4}-\\d\\d-\\d\\dT[^)]+\\) is using ${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. Stop it, or give this one its own --data-dir\\.$`));

    const other = await startHolder(mkdtempSync(join(tmpdir(), 'engy-lock-')));
    expect(other.line).toBe(`locked ${other.child.pid}`);

    const third = await startHolder(root);
    expect(third.line).toMatch(new RegExp(`^refused data-dir-locked Another engy panel engine \\(pid ${child.pid},`));
  });

  it('is released by a clean exit and reclaimed after a crash (SIGKILL leaves a stale file)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engy-lock-'));
    const a = await startHolder(root);
    a.child.stdin.end();
    await exited(a.child);
    expect(existsSync(dataPaths(root).lock)).toBe(false);

    const b = await startHolder(root);
    b.child.kill('SIGKILL');
    await exited(b.child);
    expect(readInstanceLock(root)?.pid).toBe(b.child.pid);

    const mine = tryAcquire(root);
    expect(mine).not.toBeInstanceOf(AppFailure);
    expect(readInstanceLock(root)?.pid).toBe(process.pid);
    (mine as InstanceLock).release();
    expect(existsSync(dataPaths(root).lock)).toBe(false);
  });

  it('reclaims a lock from before a reboot even when its pid is alive again', () => {
    const root = mkdtempSync(join(tmpdir(), 'engy-lock-'));
    const host = { ...defaultLockHost(), bootId: 'boot-now' };
    // pid of this test process: alive, but the lock was written in an earlier boot.
    writeFileSync(dataPaths(root).lock, JSON.stringify({ pid: process.ppid, startedAt: '2026-12-01T00:00:00.000Z', hostname: host.hostname, token: 't', bootId: 'boot-before' }));
    const l = acquireInstanceLock(root, host);
    locks.push(l);
    expect(readInstanceLock(root)).toMatchObject({ pid: process.pid, bootId: 'boot-now' });
    writeFileSync(dataPaths(root).lock, JSON.stringify({ pid: process.ppid, startedAt: '2026-12-01T00:00:00.000Z', hostname: host.hostname, token: 't', bootId: 'boot-now' }));
    expect(() => acquireInstanceLock(root, host)).toThrow(/Another engy panel engine \(pid \d+, started 2026-12-01/);
  });

  it('reclaims a corrupt lock file, but never one held by another host', () => {
    const root = mkdtempSync(join(tmpdir(), 'engy-lock-'));
    writeFileSync(dataPaths(root).lock, '{"pid":');
    expect(tryAcquire(root)).not.toBeInstanceOf(AppFailure);
    locks.pop()!.release();

    writeFileSync(dataPaths(root).lock, JSON.stringify({ pid: 1, startedAt: '2026-12-01T00:00:00.000Z', hostname: 'rig-elsewhere', token: 't' }));
    const f = tryAcquire(root) as AppFailure;
    expect(f.code).toBe('data-dir-locked');
    expect(f.message).toContain('(pid 1 on rig-elsewhere, started 2026-12-01T00:00:00.000Z)');
  });
});
