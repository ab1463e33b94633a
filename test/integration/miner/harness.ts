// Shared set-up for the miner's end-to-end tests: a fake sglang child process, the gateway
// double in-process, and a MinerService between them, over real sockets.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import { MinerService, type MinerServiceOptions } from '../../../electron/engine/miner/miner-service.ts';
import { createProofPort } from '../../../electron/engine/miner/proof-adapter.ts';
import type { MinerSnapshot } from '../../../shared/miner.ts';
import { exitWithParentEnv, FAKE_SGLANG_MAIN } from '../../doubles/fake-sglang/spawn.ts';
import { createModelAuditor } from '../../doubles/gateway/audit.ts';
import { GatewayDouble, type GatewayDoubleOptions } from '../../doubles/gateway/gateway-double.ts';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
export const CHECKPOINT = join(ROOT, 'test', 'fixtures', 'checkpoint-tiny');
export const KEY = 'mk-test-0123456789abcdef';

export interface FakeServe {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** The fake serve's output kept while it starts: its banner, or the last words of a failed start. */
const SERVE_LOG_TAIL = 8192;

/** The fake serve as a child process: hidden states on, and the upstream trim hook (small bodies) unless told. */
export function startFakeServe(extra: string[] = []): Promise<FakeServe> {
  return startFakeServeWith(extra, {});
}

export async function startFakeServeWith(extra: string[], o: { trim?: boolean; hidden?: boolean }): Promise<FakeServe> {
  const flags = ['--enable-metrics', '--max-running-requests', '80'];
  if (o.hidden ?? true) flags.push('--enable-return-hidden-states');
  if (o.trim ?? true) flags.push('--trim-hidden-states');
  const proc = spawn(process.execPath, [FAKE_SGLANG_MAIN, '--model-path', CHECKPOINT, '--port', '0', ...flags, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: exitWithParentEnv(),
  });
  const url = await new Promise<string>((resolve, reject) => {
    // The serve logs for as long as it runs: only a bounded tail is kept (for the exit message), and
    // once the banner is found the output is read and dropped. Scanning everything it ever wrote at
    // each chunk cost the miner bench's process about 13 ms of a 64-request round's first 25 ms
    // after a few thousand requests, on the serve's cores (docs/performance.md, round 19).
    let out = '';
    const onData = (d: Buffer) => {
      out = (out + d.toString()).slice(-SERVE_LOG_TAIL);
      const m = /Uvicorn running on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (!m) return;
      proc.stdout!.off('data', onData).resume();
      proc.stderr!.off('data', onData).resume();
      resolve(m[1]!);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`fake serve exited ${code}: ${out.slice(-500)}`)));
  });
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`${url}/health_generate`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    proc,
    stop: () =>
      new Promise<void>((resolve) => {
        // Exited, or killed by a signal (a test's SIGKILL): 'exit' has fired already.
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGINT');
      }),
  };
}

/** One sglang:* sample from the serve's /metrics (0 when absent). */
export async function serveMetric(serveUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${serveUrl}/metrics`)).text();
  const m = new RegExp(`^sglang:${name}\\{[^}]*\\} ([\\d.e+]+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

export function abortedAtServe(serveUrl: string): Promise<number> {
  return serveMetric(serveUrl, 'num_aborted_requests_total');
}

export function startGateway(opts: Partial<GatewayDoubleOptions> = {}): GatewayDouble {
  const proof = createProofPort();
  return new GatewayDouble({ workers: 8, keys: [KEY], judgeAfterMs: 300, auditor: createModelAuditor(CHECKPOINT, proof), ...opts });
}

export function startMiner(gatewayUrl: string, serveUrls: string[], over: Partial<MinerServiceOptions> = {}): MinerService {
  return new MinerService({
    gatewayUrl,
    serveUrls,
    checkpointDir: CHECKPOINT,
    model: 'qwen3.6-35b-a3b',
    maxInflight: 24,
    minerKey: () => KEY,
    hw: async () => ({ host: hostname(), cpus: 2, ram_gb: 8, gpu: 'none', gpu_count: 0, gpu_mem_gb: 0, gpus: '0x none', parallelism: 'tp' }),
    versions: { 'engy-panel': 'test' },
    proof: createProofPort(),
    log: silentLogger,
    backoff: { initialMs: 100, maxMs: 1000, jitter: 0.2 },
    probeWindowMs: 0,
    probeMinRequests: 1,
    ...over,
  });
}

/**
 * The gateway double without its probe (plus `gateway` options) and a miner on `serveUrls`, started and
 * waiting for the probe: `body` runs, then miner and gateway stop. The serves stay the caller's.
 */
export async function withReadyMiner(
  serveUrls: readonly string[],
  body: (gw: GatewayDouble, m: MinerService) => Promise<void>,
  o: { miner?: Partial<MinerServiceOptions>; gateway?: Partial<GatewayDoubleOptions> } = {},
): Promise<void> {
  const gw = startGateway({ probe: false, ...o.gateway });
  await gw.start();
  const m = startMiner(gw.url, [...serveUrls], o.miner);
  try {
    await m.start();
    await waitFor(m, (s) => s.phase === 'waiting-for-probe');
    await body(gw, m);
  } finally {
    await m.stop();
    await gw.stop();
  }
}

/** Runs `body` with a started fake serve and stops the serve afterwards, whatever happened. */
export async function withServe(serve: FakeServe | Promise<FakeServe>, body: (serve: FakeServe) => Promise<void>): Promise<void> {
  const s = await serve;
  try {
    await body(s);
  } finally {
    await s.stop();
  }
}

/** Resolves with the first snapshot that satisfies `pred` (or throws with the last one after `ms`). */
export function waitFor(m: MinerService, pred: (s: MinerSnapshot) => boolean, ms = 20_000): Promise<MinerSnapshot> {
  return new Promise((resolve, reject) => {
    const now = m.snapshot();
    if (pred(now)) return resolve(now);
    let last = now;
    const sub = m.onDidChange((s) => {
      last = s;
      if (pred(s)) {
        clearTimeout(t);
        void sub.dispose();
        resolve(s);
      }
    });
    const t = setTimeout(() => {
      void sub.dispose();
      reject(new Error(`timed out waiting; last phase ${last.phase}: ${last.detail}; audit ${JSON.stringify(last.audit)}`));
    }, ms);
  });
}

export async function until(pred: () => boolean, ms = 20_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
