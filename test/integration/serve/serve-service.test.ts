import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HardwareReport } from '../../../shared/hardware.ts';
import type { ServeServiceSnapshot, ServeSettings } from '../../../shared/serve.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import { findFreePort } from '../../../electron/engine/serve/port-check.ts';
import { ProcessRegistry } from '../../../electron/engine/serve/process-registry.ts';
import { ServeService } from '../../../electron/engine/serve/serve-service.ts';
import { enginePlan } from '../../fixtures/serve/engine-plan.ts';
import { CHECKPOINT, exitWithParentEnv, FAKE_PYTHON, FAKE_SGLANG, FAST, fakeEnv, fakeTrimDir, pidAlive } from './serve-harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function report(withPlan: boolean): HardwareReport {
  return {
    at: 0,
    gpus: [],
    host: { hostname: 'test', os: 'linux', cpuModel: 'cpu', cpus: 2, ramGiB: 64, diskFreeGiB: 500, diskPath: '/' },
    cudaVersion: '12.9',
    nvidiaSmi: 'ok',
    verdict: withPlan ? 'ready' : 'unsupported',
    reasons: withPlan ? [] : [{ severity: 'blocker', text: 'No GPU can run FP8.' }],
    plan: withPlan ? { modelId: 'qwen3.6-35b-a3b', engines: [enginePlan({ gpuIndices: [0], tp: 1, env: {}, extraArgs: [] })], maxInflight: 24, rationale: [] } : null,
    suggestValidator: !withPlan,
  };
}

function service(settings: ServeSettings, withPlan = true) {
  const dataDir = mkdtempSync(join(tmpdir(), 'engy-serve-svc-'));
  const trimDir = fakeTrimDir();
  const svc = new ServeService({
    dataDir,
    logHub: new LogHub(),
    detectHardware: async () => report(withPlan),
    settings: () => settings,
    checkpoint: { repo: 'Qwen/Qwen3.6-35B-A3B-FP8', dir: join(dataDir, 'checkpoints', 'Qwen', 'Qwen3.6-35B-A3B-FP8'), publishedRoot: 'ab'.repeat(32) },
    trimDir: () => trimDir,
    env: fakeEnv(),
    timings: FAST,
  });
  cleanups.push(async () => {
    await svc.dispose();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(trimDir, { recursive: true, force: true });
  });
  return { svc, dataDir };
}

function waitService(svc: ServeService, pred: (s: ServeServiceSnapshot) => boolean, ms = 30_000): Promise<ServeServiceSnapshot> {
  if (pred(svc.snapshot())) return Promise.resolve(svc.snapshot());
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out: ${JSON.stringify(svc.snapshot().fleet?.engines.map((e) => e.status))}`)), ms);
    const sub = svc.onDidChange((s) => {
      if (!pred(s)) return;
      clearTimeout(t);
      void sub.dispose();
      resolve(s);
    });
  });
}

describe('serve service', () => {
  it('blocks with a reason when the checkpoint is not there', async () => {
    const { svc } = service({ runtime: 'python', python: FAKE_PYTHON, docker: '/nonexistent/docker' });
    const s = await svc.start();
    expect(s.phase).toBe('blocked');
    expect(s.blocker?.message).toMatch(/checkpoint is not downloaded/);
    expect(s.checkpoint.state).toBe('absent');
    expect(s.fleet).toBeNull();
  });

  it('blocks when a folder the user chose is not a complete checkpoint', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'engy-not-a-checkpoint-'));
    cleanups.push(() => rmSync(empty, { recursive: true, force: true }));
    const { svc } = service({ runtime: 'python', python: FAKE_PYTHON, docker: '/nonexistent/docker', checkpointDir: empty });
    const s = await svc.start();
    expect(s.phase).toBe('blocked');
    expect(s.blocker?.message).toMatch(/config\.json missing/);
    expect(s.fleet).toBeNull();
  });

  it('blocks with the hardware reason when there is no plan', async () => {
    const { svc } = service({ runtime: 'auto', python: FAKE_PYTHON, docker: '/nonexistent/docker' }, false);
    const s = await svc.start();
    expect(s.blocker?.message).toBe('No GPU can run FP8.');
  });

  it('detects the runtime, starts the planned engine, and stops it', async () => {
    const { svc } = service({ runtime: 'auto', python: FAKE_PYTHON, docker: '/nonexistent/docker', checkpointDir: CHECKPOINT });
    const started = await svc.start();
    expect(started.phase).toBe('running');
    expect(started.runtimes?.recommended).toBe('python');
    const ready = await waitService(svc, (s) => s.fleet?.engines[0]?.status.state === 'ready');
    const engine = ready.fleet!.engines[0]!;
    expect(engine.trim.state).toBe('armed');
    expect(ready.fleet!.maxInflight).toBe(24);
    await svc.stop();
    expect(pidAlive(engine.status.pid!)).toBe(false);
    expect(svc.snapshot().phase).toBe('idle');
  });

  it('ends a serve group a crashed earlier run left behind, and only ours', async () => {
    const { dataDir } = service({ runtime: 'external', externalUrls: [] });
    const port = await findFreePort(20000 + Math.floor(Math.random() * 20000));
    const leftover = spawn(process.execPath, [FAKE_SGLANG, '--model-path', CHECKPOINT, '--port', String(port)], { detached: true, stdio: 'ignore', env: exitWithParentEnv() });
    const unrelated = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    cleanups.push(() => {
      for (const c of [leftover, unrelated]) if (c.pid && pidAlive(c.pid)) process.kill(-c.pid, 'SIGKILL');
    });
    const reg = new ProcessRegistry(join(dataDir, 'serve', 'engines.json'));
    reg.add(leftover.pid!, `--port ${port}`);
    // A recorded pid whose command line no longer matches (a recycled pid) is left alone.
    reg.add(unrelated.pid!, '--port 1');
    expect(await reg.reapLeftovers(2_000)).toEqual([leftover.pid]);
    expect(pidAlive(leftover.pid!)).toBe(false);
    expect(pidAlive(unrelated.pid!)).toBe(true);
    expect(await reg.reapLeftovers()).toEqual([]);
  });
});
