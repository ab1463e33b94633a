// The chaos run of `engy-panel mine` (a real child process) against the gateway double and a fake
// sglang serve: the gateway absent at start, malformed gateway frames, the serve killed mid-request
// and restarted, the gateway killed and restarted several times, once refusing the miner's key.
// Shared by test/integration/miner/chaos.test.ts (which asserts) and bench/chaos.bench.ts (which
// reports). Waits are on events (log lines, gateway state), never fixed sleeps.
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { dataPaths } from '../../electron/engine/lib/paths.ts';
import { GatewayDouble, type ServeResult } from '../doubles/gateway/gateway-double.ts';
import { DEFAULT_PROBE_RULE, type ProbeRule } from '../doubles/gateway/qualification.ts';
import { startFakeServe, type FakeServe } from '../integration/miner/harness.ts';
import { spawnLogged } from './logged-child.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const CHECKPOINT = join(ROOT, 'test', 'fixtures', 'checkpoint-tiny');
const KEY = 'mk-chaos-0123456789abcdef';
const WORKERS = 8;
/**
 * Qualification here checks that the miner came back, not the gateway's 99% bar: under heavy CI load
 * the miner's keep-alive connection to the fake serve can lose a race with the serve closing it
 * ("socket hang up"), failing one probe of 24, which the 99% rule would turn into a refusal.
 */
const CHAOS_RULE: ProbeRule = { ...DEFAULT_PROBE_RULE, minSuccess: 0.9 };

export interface MineChaosReport {
  faults: { gatewayAbsentAtStart: number; gatewayKills: number; gatewayRefusals: number; serveKills: number; malformedFrames: number };
  /** Miner RSS once first qualified, and after the storm and a last qualification (KiB, from /proc). */
  rssBeforeKiB: number;
  rssAfterKiB: number;
  /** Legs live at the gateway after each restart (8 each when every leg came back). */
  legsAfterRestart: number[];
  /** corr_id -> number of response frames the gateways received. */
  responses: Map<string, number>;
  /** corr_ids the gateways sent. */
  sent: Set<string>;
  /** corr_id -> number of rows in the miner's request history. */
  records: Map<string, number>;
  /** Requests the gateway sent on purpose after each fault and their outcomes. */
  checks: { after: string; ok: number; total: number }[];
  serveKillResults: ServeResult[];
  exitCode: number | null;
  log: string;
  seconds: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function waitUntil(pred: () => boolean, ms: number, what: string, context: () => string = () => ''): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}\n${context().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** The fake serve on a given port (0: any), slow enough (150 tokens/s) that a kill lands mid-request. */
function startServe(port: number): Promise<FakeServe> {
  return startFakeServe(['--port', String(port), '--tokens-per-s', '150']);
}

async function waitUntilAsync(pred: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function runningAtServe(url: string): Promise<number> {
  const text = await fetch(`${url}/metrics`)
    .then((r) => r.text())
    .catch(() => '');
  const m = /^sglang:num_running_reqs\{[^}]*\} ([\d.e+]+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

function kill(proc: ChildProcess, sig: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill(sig);
  });
}

/** Frames no gateway should send: each must be dropped by the leg without closing it or the process. */
export const MALFORMED_FRAMES: (string | Buffer)[] = [
  '{',
  'null',
  '[]',
  '"serve"',
  '{"type":"serve"}',
  '{"type":"serve","corr_id":5,"request":null}',
  '{"type":"serve","corr_id":"x","request":{"messages":"not a list"},"stream":true}',
  '{"type":"no-such-frame"}',
  '{"__proto__":{"type":"admit"}}',
  '{"type":"cancel","corr_id":"never-sent"}',
  '{"type":"deny"}',
  'x'.repeat(200_000),
  Buffer.from([0, 255, 1, 254, 2]),
];

export async function runMineChaos(opts: { gatewayRestarts?: number } = {}): Promise<MineChaosReport> {
  const started = Date.now();
  const restarts = opts.gatewayRestarts ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'engy-chaos-'));
  const keyFile = join(dir, 'key');
  writeFileSync(keyFile, KEY);
  chmodSync(keyFile, 0o600);
  const dataDir = join(dir, 'data');
  const gwPort = await freePort();
  const serve0 = await startServe(0);
  let serve = serve0;
  const servePort = Number(new URL(serve0.url).port);
  const faults = { gatewayAbsentAtStart: 0, gatewayKills: 0, gatewayRefusals: 0, serveKills: 0, malformedFrames: 0 };
  const responses = new Map<string, number>();
  const sent = new Set<string>();
  const checks: MineChaosReport['checks'] = [];
  const legsAfterRestart: number[] = [];
  let gw: GatewayDouble | null = null;
  let generation = 0;

  const child = spawnLogged(
    [join(ROOT, 'bin/engy-panel.mjs'), 'mine', '--serve-url', serve0.url, '--checkpoint', CHECKPOINT, '--gateway', `ws://127.0.0.1:${gwPort}/gw`, '--data-dir', dataDir, '--worker-name', 'chaos'],
    { ...process.env, ENGY_MINER_KEY_FILE: keyFile, PATH: '/nonexistent' },
  );
  const { proc: miner, alive, count, log: ctx } = child;

  const gateways: GatewayDouble[] = [];
  const startGateway = async (keys: string[]): Promise<GatewayDouble> => {
    // The gateway judges ~3 s after a worker's first hello (PROTOCOL 3): legs re-dial with jittered backoff, so a
    // much shorter judge would refuse a worker whose legs are still coming back.
    const g = new GatewayDouble({ port: gwPort, workers: WORKERS, keys, judgeAfterMs: 2500, probe: { waves: 1, promptWords: 20, maxTokens: 16 }, rule: CHAOS_RULE, corrPrefix: `g${generation++}-` });
    g.onFrame = (text) => {
      const f = JSON.parse(text) as { type?: string; corr_id?: unknown };
      // A number corr_id is answered as that number (as the reference does): counted under its text.
      if (f.type === 'response' && (typeof f.corr_id === 'string' || typeof f.corr_id === 'number')) responses.set(String(f.corr_id), (responses.get(String(f.corr_id)) ?? 0) + 1);
    };
    gateways.push(g);
    await g.start();
    return g;
  };
  const qualified = async (what: string): Promise<void> => {
    await waitUntil(() => gw?.worker()?.state === 'active' && gw.worker()!.legs.length === WORKERS, 60_000, `the worker to qualify again on all ${WORKERS} legs (${what})`, ctx);
  };
  const serveOnEveryLeg = async (after: string, maxTokens = 8): Promise<ServeResult[]> => {
    const runs = Array.from({ length: WORKERS }, (_, leg) =>
      gw!.serve({ messages: [{ role: 'user', content: `after ${after} on leg ${leg}` }], max_tokens: maxTokens, engy_request_id: `chk-${after}-${leg}` }, { stream: leg % 2 === 0, leg }),
    );
    const results = await Promise.all(runs.map((r) => r.done));
    checks.push({ after, ok: results.filter((r) => r.response !== null && !r.response.error).length, total: results.length });
    return results;
  };

  try {
    // 1. No gateway at all: the miner must wait it out (it used to exit 13 here).
    await waitUntil(() => count(/cannot read the gateway's worker count/gi) >= 2 || !alive(), 30_000, 'two failed /meta reads', ctx);
    if (!alive()) throw new Error(`the miner died with no gateway:\n${ctx()}`);
    faults.gatewayAbsentAtStart = count(/cannot read the gateway's worker count/gi);
    gw = await startGateway([KEY]);
    await qualified('first start');
    const rssBefore = rssKiB(miner.pid!);

    // 2. Malformed frames on every leg, then a request per leg must still be served.
    for (let leg = 0; leg < WORKERS; leg++) for (const f of MALFORMED_FRAMES) gw.sendRaw(leg, f);
    faults.malformedFrames = MALFORMED_FRAMES.length * WORKERS;
    await serveOnEveryLeg('malformed frames');

    // 3. The serve killed mid-request: each in-flight request gets one (error) response, then the
    //    serve comes back on its port and requests succeed again.
    const long = Array.from({ length: WORKERS }, (_, leg) =>
      gw!.serve({ messages: [{ role: 'user', content: `long ${leg}` }], max_tokens: 600, engy_request_id: `long-${leg}` }, { stream: true, leg }),
    );
    const before = count(/request \S+ leg=/g);
    await waitUntilAsync(async () => (await runningAtServe(serve.url)) > 0, 10_000, 'requests running on the serve');
    await kill(serve.proc, 'SIGKILL');
    faults.serveKills += 1;
    const serveKillResults = await Promise.all(long.map((r) => r.done));
    await waitUntil(() => count(/request \S+ leg=/g) >= before + WORKERS, 30_000, 'a record per killed request', ctx);
    serve = await startServe(servePort);
    // The health gate withdrew the legs while the serve was dead; they return after two good probes.
    await waitUntil(() => (gw!.worker()?.legs.length ?? 0) === WORKERS, 60_000, 'every leg back after the serve restart', ctx);
    await serveOnEveryLeg('serve restart');

    // 4. The gateway killed and restarted; once it comes back refusing the key.
    for (let i = 0; i < restarts; i++) {
      const disconnects = count(/disconnected:/g);
      await gw.stop();
      faults.gatewayKills += 1;
      await waitUntil(() => count(/disconnected:/g) >= disconnects + WORKERS, 30_000, 'every leg to notice the gateway is gone', ctx);
      if (i === 1) {
        const denials = count(/DENIED/g);
        gw = await startGateway(['mk-someone-else-000000000']);
        await waitUntil(() => count(/DENIED/g) >= denials + WORKERS, 30_000, 'every leg denied', ctx);
        faults.gatewayRefusals += 1;
        await gw.stop();
        faults.gatewayKills += 1;
      }
      gw = await startGateway([KEY]);
      await qualified(`restart ${i + 1}`);
      legsAfterRestart.push(gw.worker()!.legs.length);
      await serveOnEveryLeg(`gateway restart ${i + 1}`);
    }
    if (!alive()) throw new Error(`the miner died in the storm:\n${ctx()}`);
    const rssAfter = rssKiB(miner.pid!);

    await kill(miner, 'SIGTERM');
    const exitCode = await child.exited;
    await gw.stop();
    const records = new Map<string, number>();
    const db = new DatabaseSync(dataPaths(dataDir).database, { readOnly: true });
    try {
      for (const row of db.prepare('SELECT corr_id, COUNT(*) AS n FROM miner_requests GROUP BY corr_id').all() as { corr_id: string; n: number }[]) records.set(row.corr_id, row.n);
    } finally {
      db.close();
    }
    for (const g of gateways) for (const id of g.sentCorrIds) sent.add(id);
    return {
      faults,
      rssBeforeKiB: rssBefore,
      rssAfterKiB: rssAfter,
      legsAfterRestart,
      responses,
      sent,
      records,
      checks,
      serveKillResults,
      exitCode,
      log: ctx(),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    if (alive()) await kill(miner, 'SIGKILL');
    await gw?.stop().catch(() => undefined);
    await kill(serve.proc, 'SIGINT');
    rmSync(dir, { recursive: true, force: true });
  }
}
