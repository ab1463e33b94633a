// The engine thread's bookkeeping per served request, before and after: a replay of what a busy
// miner does per request (two log lines, one history row, a change on the mining topics) at a
// steady rate, once with the old ways (stat + append per log line, one autocommit INSERT per row,
// every topic rebuilt, serialised and sent per change) and once with the current code (LogHub's
// open file and byte count, Database.write batches, SnapshotHub publish-on-change). Reports the
// thread CPU per request and the event-loop delay of each, measured in this run.
import { appendFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { SnapshotTopic, SnapshotTopics } from '../shared/api.ts';
import { SnapshotHub } from '../electron/contract/snapshot-hub.ts';
import { Emitter } from '../electron/engine/lib/emitter.ts';
import { formatLine, LogHub } from '../electron/engine/lib/logger.ts';
import { RequestRecords } from '../electron/engine/miner/request-records.ts';
import { MINER_MIGRATIONS } from '../electron/engine/store/miner-tables.ts';
import { Database } from '../electron/engine/store/database.ts';
import type { MinerRequestRecord } from '../shared/miner.ts';
import { ms } from './report.ts';

const RATE_PER_S = 250;
const SECONDS = 3;
const TOPICS = ['serve', 'miner', 'miners'] as const;

/** About the size of the mining topics with 50 recent requests and 8 legs. */
function snapshotOf(i: number): unknown {
  return {
    version: i,
    recent: Array.from({ length: 50 }, (_, k) => ({
      corrId: `corr-${i - k}`,
      requestId: `r${i - k}`.padEnd(32, '0'),
      ttftMs: 120.5 + k,
      e2eMs: 900 + k,
      promptTokens: 400,
      completionTokens: 64,
      outcome: 'ok',
    })),
    legs: Array.from({ length: 8 }, (_, k) => ({ index: k, state: 'admitted', inflight: i % 8, rttMs: 1.5 })),
    stats: { served: i, ttftP99: 130 + (i % 7), tpotP99: 12 },
  };
}

function record(i: number): MinerRequestRecord {
  return {
    corrId: `corr-${i}`,
    requestId: `r${i}`.padEnd(32, '0'),
    leg: i % 8,
    engine: 'engine-0',
    stream: true,
    receivedAt: Date.now(),
    ttftMs: 120,
    tpotMs: 12,
    e2eMs: 900,
    promptTokens: 400,
    completionTokens: 64,
    cachedTokens: 0,
    proofMs: 40,
    outcome: 'ok',
    finishReason: 'stop',
    cause: null,
  };
}

export interface Way {
  perRequest(i: number): void;
  close(): void;
}

function oldWay(dir: string): Way {
  const file = join(dir, 'engy-panel.log');
  const db = new Database(join(dir, 'old.sqlite'));
  db.migrate(MINER_MIGRATIONS);
  const raw = db.db;
  const log = (msg: string) => {
    const text = formatLine({ seq: 0, ts: Date.now(), level: 'info', source: 'miner', msg });
    if (existsSync(file) && statSync(file).size > 5 * 1024 * 1024) return;
    appendFileSync(file, text + '\n');
  };
  return {
    perRequest(i) {
      log(`request corr-${i} leg=${i % 8} ok prompt=400 completion=64 e2e=900ms ttft=120ms`);
      log(`served corr-${i}`);
      const r = record(i);
      raw
        .prepare(
          `INSERT INTO miner_requests (corr_id, request_id, leg, engine, stream, received_at, ttft_ms, tpot_ms, e2e_ms,
           prompt_tokens, completion_tokens, cached_tokens, proof_ms, outcome, finish_reason, cause) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(r.corrId, r.requestId, r.leg, r.engine, 1, r.receivedAt, r.ttftMs, r.tpotMs, r.e2eMs, r.promptTokens, r.completionTokens, r.cachedTokens, r.proofMs, r.outcome, r.finishReason, r.cause);
      // Every topic rebuilt and serialised for the (one) client on every change.
      for (const topic of TOPICS) JSON.stringify({ kind: 'event', event: 'snapshot', payload: { topic, version: i, data: snapshotOf(i) } });
    },
    close: () => db.close(),
  };
}

export function newWay(dir: string): Way {
  const logs = new LogHub({ dir });
  const log = logs.logger('miner');
  const db = new Database(join(dir, 'new.sqlite'));
  const records = new RequestRecords(db);
  const hub = new SnapshotHub();
  hub.onEvent((e) => JSON.stringify({ kind: 'event', ...e }));
  const changes = new Emitter<void>();
  let i = 0;
  // The miner topic is gone (it duplicated miners[0]): two topics are bound, as compose.ts does.
  for (const topic of ['serve', 'miners'] as SnapshotTopic[])
    hub.bind(
      topic,
      () => snapshotOf(i) as SnapshotTopics[typeof topic],
      (l) => changes.event(l),
    );
  return {
    perRequest(n) {
      i = n;
      log.info(`request corr-${n} leg=${n % 8} ok prompt=400 completion=64 e2e=900ms ttft=120ms`);
      log.info(`served corr-${n}`);
      records.add(record(n), Date.now());
      changes.fire();
    },
    close() {
      logs.close();
      db.close();
    },
  };
}

async function replay(make: (dir: string) => Way): Promise<{ cpuPerRequest: number; p99: number; max: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'engy-thread-'));
  const way = make(dir);
  const lag = monitorEventLoopDelay({ resolution: 2 });
  let n = 0;
  lag.enable();
  // All of the thread's time over the replay, timers and coalesced work included.
  const cpu0 = process.threadCpuUsage();
  const end = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      // Catch up to the rate, as a loop that fell behind would face the backlog.
      const due = Math.floor(((performance.now() - started) / 1000) * RATE_PER_S);
      while (n < due) way.perRequest(n++);
      if (performance.now() < end) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  // Let the coalesced work (batches, ticks) land before closing, and count it too.
  await new Promise((r) => setTimeout(r, 300));
  way.close();
  const u = process.threadCpuUsage(cpu0);
  lag.disable();
  rmSync(dir, { recursive: true, force: true });
  return { cpuPerRequest: (u.user + u.system) / 1000 / Math.max(1, n), p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 };
}

export async function bench(): Promise<void> {
  console.log(`engine-thread bookkeeping per served request, replayed at ${RATE_PER_S} requests/s for ${SECONDS} s (2 log lines, 1 history row, a mining-topics change each)`);
  // The replay's own timer ticks, measured the same way and taken off both.
  const idle = await replay(() => ({ perRequest() {}, close() {} }));
  const before = await replay(oldWay);
  const after = await replay(newWay);
  const row = (label: string, r: typeof before, minus = idle.cpuPerRequest) =>
    console.log(`  ${label.padEnd(74)}thread CPU ${ms(r.cpuPerRequest - minus, 3)} per request, loop delay p99 ${ms(r.p99)}, max ${ms(r.max)}`);
  row('replay loop alone (subtracted from the two below)', idle, 0);
  row('before (stat + append per log line, INSERT per row, 3 topics per change)', before);
  row('after (open log file, batched rows, 2 topics published on change)', after);
  console.log(
    `  ${((before.cpuPerRequest - idle.cpuPerRequest) / Math.max(1e-6, after.cpuPerRequest - idle.cpuPerRequest)).toFixed(1)}x less engine-thread time per request; loop delay p99 ${ms(before.p99)} -> ${ms(after.p99)}`,
  );
}
