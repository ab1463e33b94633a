import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServePlan } from '../../../shared/hardware.ts';
import type { ServeSnapshot } from '../../../shared/serve.ts';
import { GpuSampler } from '../../../electron/engine/serve/gpu-sampler.ts';
import { findFreePort } from '../../../electron/engine/serve/port-check.ts';
import { createExternalFleet, createServeFleet, planLaunches } from '../../../electron/engine/serve/serve-setup.ts';
import type { ServeFleet } from '../../../electron/engine/serve/serve-fleet.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import type { ExecText } from '../../../electron/engine/lib/exec-text.ts';
import { enginePlan } from '../../fixtures/serve/engine-plan.ts';
import { CHECKPOINT, exitWithParentEnv, FAKE_PYTHON, FAKE_SGLANG, FAST, ROOT, fakeEnv, fakeTrimDir, pidAlive, waitFor } from './serve-harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function waitFleet(fleet: ServeFleet, pred: (s: ServeSnapshot) => boolean, ms = 30_000): Promise<ServeSnapshot> {
  if (pred(fleet.snapshot())) return Promise.resolve(fleet.snapshot());
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out; ${JSON.stringify(fleet.snapshot().engines.map((e) => e.status))}`)), ms);
    const sub = fleet.onDidChange((s) => {
      if (!pred(s)) return;
      clearTimeout(t);
      void sub.dispose();
      resolve(s);
    });
  });
}

const fakeSmi: ExecText = (file, args, timeoutMs) =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, env: { ...process.env, FAKE_NVIDIA_SMI: '2x4090' } }, (e, out) => (e ? reject(e) : resolve(String(out))));
  });

describe('serve fleet', () => {
  it('starts two engines one after another and samples the GPUs', async () => {
    const plan: ServePlan = {
      modelId: 'qwen3.6-35b-a3b',
      engines: [0, 1].map((i) => enginePlan({ index: i, gpuIndices: [i], tp: 1, env: {}, extraArgs: ['--slow-start-ms', '300'] })),
      maxInflight: 48,
      rationale: [],
    };
    const trimDir = fakeTrimDir();
    const specs = await planLaunches(plan, { modelPath: CHECKPOINT, target: { kind: 'python', python: FAKE_PYTHON }, trimDir, basePort: 20000 + Math.floor(Math.random() * 20000) });
    expect(specs[0]!.port).not.toBe(specs[1]!.port);
    expect(specs.map((s) => s.env.CUDA_VISIBLE_DEVICES)).toEqual(['0', '1']);
    const gpuSampler = new GpuSampler({ exec: fakeSmi, bin: join(ROOT, 'test', 'doubles', 'fake-nvidia-smi', 'nvidia-smi'), intervalMs: 200 });
    const hub = new LogHub();
    const fleet = createServeFleet(plan, specs, trimDir, { logHub: hub, env: fakeEnv(), timings: FAST, gpuSampler });
    cleanups.push(async () => {
      await fleet.dispose();
      rmSync(trimDir, { recursive: true, force: true });
    });
    const order: Array<[string, string]> = [];
    fleet.onDidChange((s) => order.push([s.engines[0]!.status.state, s.engines[1]!.status.state]));
    fleet.start();
    await fleet.whenStarted();
    const snap = fleet.snapshot();
    expect(snap.engines.map((e) => e.status.state)).toEqual(['ready', 'ready']);
    // Engine 1 left "stopped" only once engine 0 was ready.
    const firstMove = order.find(([, b]) => b !== 'stopped');
    expect(firstMove?.[0]).toBe('ready');
    expect(hub.sources()).toEqual(expect.arrayContaining(['serve:0', 'serve:1']));
    const withGpus = await waitFleet(fleet, (s) => s.gpus.length === 2 && s.gpus.every((g) => g.points.length > 0));
    expect(withGpus.gpus[0]!.name).toContain('4090');
    expect(withGpus.gpus[0]!.points[0]!.memoryTotalMiB).toBeGreaterThan(20000);
    expect(withGpus.version).toBeGreaterThan(0);
    expect(withGpus.maxInflight).toBe(48);
    expect(withGpus.gpuError).toBeNull();
    const pids = snap.engines.map((e) => e.status.pid!);
    await fleet.stop();
    for (const pid of pids) expect(pidAlive(pid)).toBe(false);
  });
});

describe('serve fleet start order', () => {
  it('does not let a crash-looping engine hold back the next one', async () => {
    const plan: ServePlan = {
      modelId: 'qwen3.6-35b-a3b',
      engines: [enginePlan({ index: 0, gpuIndices: [0], tp: 1, env: {}, extraArgs: ['--fail', 'warmup'] }), enginePlan({ index: 1, gpuIndices: [1], tp: 1, env: {}, extraArgs: [] })],
      maxInflight: 48,
      rationale: [],
    };
    const specs = await planLaunches(plan, { modelPath: CHECKPOINT, target: { kind: 'python', python: FAKE_PYTHON }, trimDir: null, basePort: 20000 + Math.floor(Math.random() * 20000) });
    const fleet = createServeFleet(plan, specs, null, { env: fakeEnv(), timings: { ...FAST, backoff: { initialMs: 5_000, maxMs: 5_000 } } });
    cleanups.push(() => fleet.dispose());
    fleet.start();
    await fleet.whenStarted();
    const s = fleet.snapshot();
    expect(s.engines[0]!.status.state).toBe('restarting');
    expect(s.engines[1]!.status.state).toBe('ready');
  });
});

describe('GPU sampler', () => {
  it('says why there are no GPU samples when nvidia-smi is missing', async () => {
    const sampler = new GpuSampler({ bin: '/nonexistent/nvidia-smi' });
    const fleet = createExternalFleet([], 0, { gpuSampler: sampler });
    await sampler.sample();
    expect(fleet.snapshot().gpus).toEqual([]);
    expect(fleet.snapshot().gpuError).toBe('nvidia-smi is not installed');
    await fleet.dispose();
  });
});

async function runExternalServe(extra: string[], fixedPort?: number): Promise<{ url: string; child: ChildProcess }> {
  const port = fixedPort ?? (await findFreePort(20000 + Math.floor(Math.random() * 20000)));
  const child = spawn(process.execPath, [FAKE_SGLANG, '--model-path', CHECKPOINT, '--port', String(port), '--enable-metrics', ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: exitWithParentEnv(),
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stderr!.on('data', (c: Buffer) => {
      text += c.toString();
      if (text.includes('fired up and ready to roll')) resolve();
    });
    child.once('exit', () => reject(new Error(`external serve exited: ${text}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

describe('external serve', () => {
  it('only watches: ready from health, then degraded when it stops answering', async () => {
    const { url, child } = await runExternalServe(['--enable-return-hidden-states']);
    const fleet = createExternalFleet([url], 8, { timings: FAST });
    cleanups.push(() => fleet.dispose());
    fleet.start();
    const engine = fleet.engines[0]!;
    const ready = await waitFor(engine, (s) => s.status.state === 'ready');
    expect(ready.runtime).toBe('external');
    expect(ready.command).toBe('');
    expect(ready.trim.state).toBe('unknown');
    expect(ready.sglangVersion).toBe('0.5.12.post1');
    await waitFor(engine, (s) => s.metrics.length > 0);
    child.kill('SIGKILL');
    const degraded = await waitFor(engine, (s) => s.status.state === 'degraded');
    if (degraded.status.state !== 'degraded') throw new Error('unreachable');
    expect(degraded.status.cause.code).toBe('unhealthy');
    // The panel never owned that process: stopping the fleet kills nothing, it just stops watching.
    await fleet.stop();
    expect(engine.snapshot().status.state).toBe('stopped');
  });

  it('says so when the external serve cannot return hidden states', async () => {
    const { url } = await runExternalServe([]);
    const fleet = createExternalFleet([url], 8, { timings: FAST });
    cleanups.push(() => fleet.dispose());
    fleet.start();
    const s = await waitFor(fleet.engines[0]!, (x) => x.status.state === 'degraded');
    if (s.status.state !== 'degraded') throw new Error('unreachable');
    expect(s.status.cause.code).toBe('hidden-states-disabled');
    expect(s.status.cause.fix).toContain('--enable-return-hidden-states');
  });

  it('says an external serve that does not answer is not ready, and picks it up once it does', async () => {
    const port = await findFreePort(20000 + Math.floor(Math.random() * 20000));
    const fleet = createExternalFleet([`http://127.0.0.1:${port}`], 8, { timings: { ...FAST, readyTimeoutMs: 500, healthTimeoutMs: 300 } });
    cleanups.push(() => fleet.dispose());
    fleet.start();
    const engine = fleet.engines[0]!;
    const down = await waitFor(engine, (s) => s.status.state === 'degraded');
    if (down.status.state !== 'degraded') throw new Error('unreachable');
    expect(down.status.cause.code).toBe('never-ready');
    expect(down.status.cause.evidence).toContain(String(port));
    await runExternalServe(['--enable-return-hidden-states'], port);
    await waitFor(engine, (s) => s.status.state === 'ready');
  });
});
