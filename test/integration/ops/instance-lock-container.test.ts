// The data-dir lock in containers: the engine runs as PID 1 of a new pid namespace with its own
// hostname (what Docker gives it), is killed -9, and a new "container" (new namespace, new hostname,
// PID 1 again) must start on the same data dir. While one holds it, another namespace is refused.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const bin = join(root, 'bin', 'engy-panel.mjs');

function unshareWorks(): string | undefined {
  const probe = spawnSync('unshare', ['-fpu', '--mount-proc', 'sh', '-c', 'hostname probe && echo $$'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.error) return `unshare is not available (${probe.error.message})`;
  if (probe.status !== 0 || probe.stdout.trim() !== '1') return `unshare -fpu --mount-proc is not permitted here (exit ${probe.status}: ${probe.stderr.trim()})`;
  return undefined;
}
const skipReason = process.platform === 'linux' ? unshareWorks() : 'pid namespaces are Linux only';
if (skipReason) console.warn(`skipping the container lock test: ${skipReason}`);

const children: ChildProcess[] = [];

interface Container {
  child: ChildProcess;
  output: () => string;
  /** Resolves with 'open' once the engine prints its URL, or 'exit' with the output when it quits first. */
  settled: Promise<'open' | 'exit'>;
}

/** `engy-panel headless` as PID 1 of a new pid + UTS namespace named `name`, in its own process group. */
function container(name: string, dataDir: string): Container {
  const script = 'hostname "$1" && exec "$2" "$3" headless --port 0 --data-dir "$4"';
  const child = spawn('unshare', ['-fpu', '--mount-proc', 'sh', '-c', script, 'sh', name, process.execPath, bin, dataDir], {
    env: { ...process.env, ENGY_RENDERER_DIR: join(root, 'dist-renderer'), ENGY_FROM_SOURCE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const settled = new Promise<'open' | 'exit'>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`container ${name} neither opened nor exited in 60 s:\n${out}`)), 60_000);
    child.stdout!.on('data', () => {
      if (!/Open: http/.test(out)) return;
      clearTimeout(timer);
      resolve('open');
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve('exit');
    });
  });
  return { child, output: () => out, settled };
}

function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
  return gone;
}

afterEach(async () => {
  for (const c of children.splice(0)) await killGroup(c);
});

describe.skipIf(skipReason !== undefined)('the data-dir lock across pid namespaces and hostnames', () => {
  it('refuses a second container while one runs, and starts again after the holder is killed -9', { timeout: 180_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engy-lock-ns-'));
    const first = container('rig-a', dataDir);
    expect(await first.settled, first.output()).toBe('open');

    const rival = container('rig-b', dataDir);
    expect(await rival.settled, rival.output()).toBe('exit');
    expect(rival.output()).toMatch(/Another engy panel engine \(pid 1 on rig-a, started /);

    await killGroup(first.child);

    const next = container('rig-c', dataDir);
    expect(await next.settled, next.output()).toBe('open');
    await killGroup(next.child);

    // The same hostname again (docker run --hostname): the note names our own pid 1 on our own host.
    const same = container('rig-c', dataDir);
    expect(await same.settled, same.output()).toBe('open');
  });
});
