import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineSnapshot, ServeStartPhase } from '../../../shared/serve.ts';
import { EngineSupervisor } from '../../../electron/engine/serve/engine-supervisor.ts';
import type { EngineTimings } from '../../../electron/engine/serve/engine-timings.ts';
import type { FetchFn } from '../../../electron/engine/lib/fetch.ts';
import { buildLaunchSpec } from '../../../electron/engine/serve/launch-plan.ts';
import { findFreePort } from '../../../electron/engine/serve/port-check.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import { enginePlan } from '../../fixtures/serve/engine-plan.ts';
import { CHECKPOINT, FAKE_PYTHON, FAST, fakeEnv, fakeTrimDir, pidAlive, waitFor } from './serve-harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

interface SupervisorCase {
  extraArgs?: string[];
  env?: Record<string, string>;
  port?: number;
  trim?: boolean;
  fetch?: FetchFn;
  timings?: Partial<EngineTimings>;
}

async function supervisor(opts: SupervisorCase = {}) {
  const port = opts.port ?? (await findFreePort(20000 + Math.floor(Math.random() * 20000)));
  const trimDir = opts.trim === false ? null : fakeTrimDir();
  const plan = enginePlan({ index: 0, gpuIndices: [0], tp: 1, env: {}, extraArgs: ['--slow-start-ms', '250', ...(opts.extraArgs ?? [])] });
  const spec = buildLaunchSpec(plan, { modelPath: CHECKPOINT, port, trimDir }, { kind: 'python', python: FAKE_PYTHON });
  const hub = new LogHub();
  const sup = new EngineSupervisor({
    index: 0,
    spec,
    trimDir,
    env: fakeEnv(opts.env),
    logger: hub.logger('serve:0'),
    timings: { ...FAST, ...opts.timings },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const seen: EngineSnapshot[] = [];
  sup.onDidChange((s) => seen.push(s));
  cleanups.push(async () => {
    await sup.dispose();
    if (trimDir) rmSync(trimDir, { recursive: true, force: true });
  });
  return { sup, hub, seen, port };
}

const launches = (hub: LogHub) => hub.recent({ source: 'serve:0' }).filter((l) => l.msg.startsWith('launching:')).length;

describe('engine supervisor against the fake sglang (real child processes)', () => {
  it('starts, walks the phases from the log, is ready only after /health_generate, and stops its whole group', async () => {
    const pidDir = mkdtempSync(join(tmpdir(), 'engy-pid-'));
    const pidFile = join(pidDir, 'child.pid');
    const { sup, hub, seen } = await supervisor({ env: { FAKE_PYTHON_CHILD_PIDFILE: pidFile } });
    await sup.start();
    const ready = await waitFor(sup, (s) => s.status.state === 'ready');
    const phases = new Set(seen.flatMap((s) => (s.status.state === 'starting' ? [s.status.phase] : [])));
    for (const p of ['launching', 'loading-weights', 'allocating-kv-cache', 'capturing-cuda-graphs', 'warming-up', 'health-check'] as ServeStartPhase[]) expect(phases).toContain(p);
    expect(ready.trim.state).toBe('armed');
    expect(ready.sglangVersion).toBe('0.5.12.post1');
    expect(ready.command).toContain('--enable-return-hidden-states');
    const pid = ready.status.pid!;
    expect(pid).toBeGreaterThan(0);
    // Lines land in the log hub under the engine's source.
    expect(hub.recent({ source: 'serve:0' }).some((l) => l.msg.includes('The server is fired up and ready to roll!'))).toBe(true);
    // Metrics get scraped once ready.
    const withMetrics = await waitFor(sup, (s) => s.metrics.length > 0);
    expect(withMetrics.metrics[0]!.runningReqs).not.toBeNull();
    // The body itself is kept for the panel's /metrics (relabelled), and given up when the engine stops.
    expect(sup.sglangMetricsText()).toMatch(/^sglang:num_running_reqs\{/m);

    const helper = Number(readFileSync(pidFile, 'utf8'));
    expect(pidAlive(helper)).toBe(true);
    await sup.stop();
    expect(sup.snapshot().status.state).toBe('stopped');
    expect(sup.sglangMetricsText()).toBeNull();
    expect(pidAlive(pid)).toBe(false);
    // The helper ignored SIGTERM; the group kill still took it.
    expect(pidAlive(helper)).toBe(false);
    rmSync(pidDir, { recursive: true, force: true });
  });

  it('restarts a crashed engine after a backoff and comes back ready', async () => {
    // The crash comes after the supervisor's first healthy check, so it sees ready however slow the box.
    const { sup, hub, seen } = await supervisor({ extraArgs: ['--crash-after-healthy-s', '0.3'] });
    await sup.start();
    const restarting = await waitFor(sup, (s) => s.status.state === 'restarting');
    if (restarting.status.state !== 'restarting') throw new Error('unreachable');
    expect(restarting.status.nextRetryAt).toBeGreaterThan(restarting.status.since);
    expect(restarting.status.cause.retryable).toBe(true);
    expect(restarting.status.restarts).toBe(1);
    expect(restarting.status.stderrTail.join('\n')).toContain('illegal memory access');
    await waitFor(sup, (s) => s.status.state === 'ready' && s.status.restarts >= 1);
    expect(launches(hub)).toBeGreaterThanOrEqual(2);
    expect(seen.some((s) => s.status.state === 'crashed')).toBe(true);
    // It crashes again: the next wait is longer (exponential: 150 ms +-20 %, then 300 ms +-20 %).
    const again = await waitFor(sup, (s) => s.status.state === 'restarting' && s.status.restarts === 2);
    if (again.status.state !== 'restarting') throw new Error('unreachable');
    expect(again.status.nextRetryAt - again.status.since).toBeGreaterThan(restarting.status.nextRetryAt - restarting.status.since);
  });

  it('classifies an OOM at load, explains it, and does not loop', async () => {
    const { sup, hub } = await supervisor({ extraArgs: ['--fail', 'oom'] });
    await sup.start();
    const failed = await waitFor(sup, (s) => s.status.state === 'failed');
    if (failed.status.state !== 'failed') throw new Error('unreachable');
    expect(failed.status.cause.code).toBe('cuda-oom-load');
    expect(failed.status.cause.retryable).toBe(false);
    expect(failed.status.cause.fix.length).toBeGreaterThan(10);
    expect(failed.status.cause.evidence).toContain('CUDA out of memory');
    expect(failed.status.restarts).toBe(0);
    expect(launches(hub)).toBe(1);
  });

  it('sees the port taken before launching anything', async () => {
    const blocker: Server = createServer();
    const port = await findFreePort(20000 + Math.floor(Math.random() * 20000));
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => blocker.close(() => r())));
    const { sup, hub } = await supervisor({ port });
    await sup.start();
    const s = sup.snapshot();
    if (s.status.state !== 'failed') throw new Error(`expected failed, got ${s.status.state}`);
    expect(s.status.cause.code).toBe('port-in-use');
    expect(s.status.cause.evidence).toContain(String(port));
    expect(launches(hub)).toBe(0);
  });

  it('keeps the trim hook away from a serve started without it', async () => {
    const { sup } = await supervisor({ trim: false });
    await sup.start();
    const ready = await waitFor(sup, (s) => s.status.state === 'ready');
    expect(ready.trim.state).toBe('off');
    expect(ready.command).not.toContain('PYTHONPATH');
  });

  it('kills and restarts an engine that never becomes healthy', async () => {
    // --hang: the log says ready, but the serve never answers a request.
    const { sup, hub } = await supervisor({ extraArgs: ['--hang'], timings: { readyTimeoutMs: 1_500, healthTimeoutMs: 300 } });
    await sup.start();
    const r = await waitFor(sup, (s) => s.status.state === 'restarting');
    if (r.status.state !== 'restarting') throw new Error('unreachable');
    expect(r.status.cause.code).toBe('never-ready');
    expect(r.status.signal).toBe('SIGKILL');
    expect(launches(hub)).toBe(1);
    await waitFor(sup, (s) => s.status.state === 'starting' && s.status.pid !== null && s.status.pid !== r.status.pid);
  });

  it('kills and restarts a wedged engine: requests running, tokens flat', async () => {
    // The serve is real; its /metrics is replaced by a frozen body: 3 running, counter stuck.
    const frozen = '# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs 3\n# TYPE sglang:generation_tokens_total counter\nsglang:generation_tokens_total 1234\n';
    const fetchFn: FetchFn = (url, init) => (url.endsWith('/metrics') ? Promise.resolve(new Response(frozen, { status: 200 })) : fetch(url, init));
    const { sup } = await supervisor({ fetch: fetchFn, timings: { stallMs: 600, metricsIntervalMs: 100 } });
    await sup.start();
    await waitFor(sup, (s) => s.status.state === 'ready');
    const r = await waitFor(sup, (s) => s.status.state === 'restarting');
    if (r.status.state !== 'restarting') throw new Error('unreachable');
    expect(r.status.cause.code).toBe('stalled');
    expect(r.status.cause.evidence).toContain('3 running requests');
  });

  // Every failure the fake serve can print, through the real process and log path.
  it.each([
    ['kv-memory', 'not-enough-memory'],
    ['cuda-graph-oom', 'cuda-oom-graph'],
    ['nvcc', 'nvcc-missing'],
    ['fp8-arch', 'fp8-unsupported'],
    ['p2p', 'p2p-nccl'],
  ])('--fail %s is classified as %s and stops', async (mode, code) => {
    const { sup, hub } = await supervisor({ extraArgs: ['--fail', mode] });
    await sup.start();
    const failed = await waitFor(sup, (s) => s.status.state === 'failed');
    if (failed.status.state !== 'failed') throw new Error('unreachable');
    expect(failed.status.cause.code).toBe(code);
    expect(launches(hub)).toBe(1);
  });

  it('retries a warmup failure, whose cause it cannot name', async () => {
    const { sup } = await supervisor({ extraArgs: ['--fail', 'warmup'] });
    await sup.start();
    const r = await waitFor(sup, (s) => s.status.state === 'restarting');
    if (r.status.state !== 'restarting') throw new Error('unreachable');
    expect(r.status.cause.code).toBe('exited');
    expect(r.status.stderrTail.join('\n')).toContain('warmup error');
  });
});
