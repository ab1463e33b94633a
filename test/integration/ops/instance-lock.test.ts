import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireInstanceLock, defaultLockHost, kernelLockPath, readInstanceLock, type InstanceLock } from '../../../electron/engine/lib/instance-lock.ts';
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
    expect(f.message).toMatch(
      new RegExp(
        `^Another engy panel engine \\(pid ${child.pid}, started \\d{4}-\\d\\d-\\d\\dT[^)]+\\) is using ${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. Stop it, or give this one its own --data-dir\\.$`,
      ),
    );

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

  it('takes a lock no process holds whatever its note says (a live pid, our own pid, another host, garbage)', () => {
    const root = mkdtempSync(join(tmpdir(), 'engy-lock-'));
    const host = defaultLockHost();
    const notes = [
      JSON.stringify({ pid: process.ppid, startedAt: '2026-12-01T00:00:00.000Z', hostname: host.hostname, token: 't' }),
      JSON.stringify({ pid: process.pid, startedAt: '2026-12-01T00:00:00.000Z', hostname: host.hostname, token: 't' }),
      JSON.stringify({ pid: 1, startedAt: '2026-12-01T00:00:00.000Z', hostname: 'container-before-restart', token: 't' }),
      '{"pid":',
      '{"__proto__":{"pid":1},"constructor":{"prototype":{"x":1}}}',
    ];
    for (const note of notes) {
      writeFileSync(dataPaths(root).lock, note);
      const l = acquireInstanceLock(root, host);
      expect(readInstanceLock(root)).toMatchObject({ pid: process.pid, hostname: host.hostname });
      l.release();
      expect(existsSync(dataPaths(root).lock)).toBe(false);
    }
  });

  it('refuses while another process holds the kernel lock even when the note is gone, and replaces a planted link without following it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engy-lock-'));
    const { child } = await startHolder(root);
    rmSync(dataPaths(root).lock);
    const f = tryAcquire(root) as AppFailure;
    expect(f.code).toBe('data-dir-locked');
    expect(f.message).toBe(`Another engy panel engine is using ${root} (it holds ${kernelLockPath(root)}). Stop it, or give this one its own --data-dir.`);
    child.kill('SIGKILL');
    await exited(child);

    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'untouched');
    symlinkSync(victim, dataPaths(root).lock);
    const l = tryAcquire(root) as InstanceLock;
    expect(l).not.toBeInstanceOf(AppFailure);
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(lstatSync(dataPaths(root).lock).isSymbolicLink()).toBe(false);
  });
});
