// The miner under bench, in its own process as in production (the bench process holds the buyer
// and the gateway double, so their work never lands on the miner's thread). Started by
// miner.bench.ts with fork(); reports over IPC: its request records with sub-ms absolute
// timestamps, its CPU time, its event-loop lag and where its thread time went, per stage.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { systemClock, type Clock } from '../electron/engine/lib/clock.ts';
import { DeltaCoalescer } from '../electron/engine/miner/delta-coalescer.ts';
import { OutputSplitter } from '../electron/engine/miner/output-splitter.ts';
import { PromptBuilder, type EarlyPrompt } from '../electron/engine/miner/prompt-builder.ts';
import { SseTextScanner } from '../electron/engine/miner/sse-text.ts';
import { Database } from '../electron/engine/store/database.ts';
import { createProofPort } from '../electron/engine/miner/proof-adapter.ts';
import { ProofPool } from '../electron/engine/proof/proof-pool.ts';
import { queryRequestHistory } from '../electron/engine/store/request-history.ts';
import { startMiner, waitFor } from '../test/integration/miner/harness.ts';
import { absNow, schedDelta, schedStat, type SchedStat } from './report.ts';

export type ChildCommand = { cmd: 'mark' } | { cmd: 'report' } | { cmd: 'stop' } | { cmd: 'stages'; on: boolean };

export interface StageTime {
  calls: number;
  /** Thread CPU time spent inside the stage (not wall time: on a busy box wall time includes waits). */
  ms: number;
}

export interface ChildReport {
  records: { corrId: string; receivedAt: number; ttftMs: number | null; e2eMs: number; proofMs: number | null; outcome: string }[];
  cpuMs: number;
  wallMs: number;
  /** Event-loop delay: how late a 5 ms timer fired (Node's histogram holds whole intervals; the interval is taken off). */
  lag: { p50: number; p99: number; max: number };
  stages: Record<string, StageTime>;
  /** The miner's main thread over the run; null off Linux. */
  sched: SchedStat | null;
  rssMb: number;
  /** Per request since the mark: ms from the prompt build's call (the pipeline's start) to its ids, queue included. */
  promptWaits: number[];
  /** The same requests: when the ids were ready, epoch ms on the bench's clock (absNow). */
  promptReadyAt: number[];
  /** Requests sent with the fast encoder's guess: ms from the build's call to the tokenizer's confirming ids. */
  confirmWaits: number[];
}

const stages: Record<string, StageTime> = {};
// Two thread-CPU reads per timed call cost about 0.9 ms of this thread per request: off during the
// measured rounds (their latency and CPU figures would carry it), on for a round of their own.
let timing = false;

/** Time a synchronous method (its thread time), or an async one up to its first await. */
function timeMethod(proto: object, name: string, label: string): void {
  const target = proto as Record<string, unknown>;
  const orig = target[name] as (...a: unknown[]) => unknown;
  const slot = (stages[label] = { calls: 0, ms: 0 });
  target[name] = function (this: unknown, ...args: unknown[]) {
    if (!timing) return orig.apply(this, args);
    const t = process.threadCpuUsage();
    try {
      return orig.apply(this, args);
    } finally {
      const u = process.threadCpuUsage(t);
      slot.calls++;
      slot.ms += (u.user + u.system) / 1000;
    }
  };
}

timeMethod(PromptBuilder.prototype, 'buildEarly', 'prompt build up to its batch (sync part, render and any guess included)');
timeMethod(PromptBuilder.prototype, 'render', 'template render');

// The wall time from a prompt's build call (the pipeline's start) to its ids, queue included: one
// slot per request in a buffer made once (instrumentation must not allocate per event).
const promptWaits = new Float64Array(8192);
const promptReadyAt = new Float64Array(8192);
let promptWaitCount = 0;
const confirmWaits = new Float64Array(8192);
let confirmCount = 0;
{
  // buildEarly is what the pipeline calls: its ids are the ones sent (a guess, or the tokenizer's).
  const proto = PromptBuilder.prototype as unknown as Record<string, (...a: unknown[]) => Promise<EarlyPrompt>>;
  const build = proto.buildEarly!;
  proto.buildEarly = function (this: unknown, ...args: unknown[]) {
    const t = performance.now();
    const p = build.apply(this, args);
    void p.then(
      (built) => {
        if (promptWaitCount >= promptWaits.length) return;
        promptWaits[promptWaitCount] = performance.now() - t;
        promptReadyAt[promptWaitCount++] = absNow();
        built.confirmed?.then(
          () => {
            if (confirmCount < confirmWaits.length) confirmWaits[confirmCount++] = performance.now() - t;
          },
          () => undefined,
        );
      },
      () => undefined,
    );
    return p;
  };
}
timeMethod(SseTextScanner.prototype, 'push', 'SSE text scan');
timeMethod(OutputSplitter.prototype, 'push', 'reasoning/tool splitter');
timeMethod(DeltaCoalescer.prototype, 'flush', 'delta frames: merge + JSON + ws send');

const [gatewayUrl, serveUrl] = process.argv.slice(2) as [string, string];
const clock: Clock = { ...systemClock, now: absNow };
const db = new Database(':memory:');
// Bodies are parsed and proven in the proof pool's workers, as the engine does (mining-module.ts):
// the miner's CPU per request counts them (process.cpuUsage covers every thread).
const pool = new ProofPool();
const miner = startMiner(gatewayUrl, [serveUrl], { maxInflight: 64, clock, db, proof: createProofPort(pool) });
const LAG_RESOLUTION_MS = 5;
const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
// The histogram records each whole interval between the timer's runs (an idle loop reads ~5.2 ms at
// a 5 ms resolution): the delay is what is left over the interval.
const late = (ns: number): number => Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS);
let cpu0 = process.cpuUsage();
let wall0 = performance.now();
let sched0 = schedStat(process.pid);

await miner.start();
await waitFor(miner, (s) => s.legsLive === s.legsPlanned && s.legsPlanned > 0 && s.phase !== 'connecting', 30_000);
lag.enable();
process.send!({ ready: true });

let stopping = false;
function stop(): void {
  if (stopping) return;
  stopping = true;
  void miner.stop().finally(async () => {
    await pool.dispose();
    db.close();
    process.exit(0);
  });
}

process.on('message', (m: ChildCommand) => {
  if (m.cmd === 'mark') {
    cpu0 = process.cpuUsage();
    wall0 = performance.now();
    sched0 = schedStat(process.pid);
    lag.reset();
    promptWaitCount = 0;
    confirmCount = 0;
    for (const s of Object.values(stages)) {
      s.calls = 0;
      s.ms = 0;
    }
    process.send!({ marked: true });
  } else if (m.cmd === 'stages') {
    timing = m.on;
    for (const s of Object.values(stages)) {
      s.calls = 0;
      s.ms = 0;
    }
    process.send!({ staged: true });
  } else if (m.cmd === 'report') {
    const cpu = process.cpuUsage(cpu0);
    const report: ChildReport = {
      records: queryRequestHistory(db, { limit: 100_000 }).map((r) => ({ corrId: r.corrId, receivedAt: r.receivedAt, ttftMs: r.ttftMs, e2eMs: r.e2eMs, proofMs: r.proofMs, outcome: r.outcome })),
      cpuMs: (cpu.user + cpu.system) / 1000,
      wallMs: performance.now() - wall0,
      lag: { p50: late(lag.percentile(50)), p99: late(lag.percentile(99)), max: late(lag.max) },
      stages,
      sched: schedDelta(sched0, schedStat(process.pid)),
      rssMb: process.memoryUsage().rss / 2 ** 20,
      promptWaits: Array.from(promptWaits.subarray(0, promptWaitCount)),
      promptReadyAt: Array.from(promptReadyAt.subarray(0, promptWaitCount)),
      confirmWaits: Array.from(confirmWaits.subarray(0, confirmCount)),
    };
    process.send!({ report });
  } else if (m.cmd === 'stop') stop();
});
// The bench gone without a word (killed, crashed): the channel closes, and this child goes too.
process.on('disconnect', stop);
