// The miner's request history on a rig that served for months: the earnings refresh's token totals read
// the old way (a SUM over every request row) and the current way (whole days from the daily totals, rows
// only for the partial days), side by side on one database; then the first prune of the rows past the
// kept days, with the longest stretch it holds the thread between its pauses.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADD_TO_DAY_SQL, dayStart, MINER_MIGRATIONS } from '../electron/engine/store/miner-tables.ts';
import { Database } from '../electron/engine/store/database.ts';
import { localTokens, pruneRequestHistory } from '../electron/engine/store/request-totals.ts';
import { goal, ms, pct } from './report.ts';

const ROWS = 1_500_000; // ~120 days at 0.15 requests/s, or 17 days at 1/s
const DAYS = 120;
const DAY = 86_400_000;

function timeIt(fn: () => unknown, runs: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    out.push(performance.now() - t);
  }
  return out;
}

export async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engy-bench-history-'));
  try {
    const path = join(dir, 'engy-panel.sqlite');
    const db = new Database(path);
    db.migrate(MINER_MIGRATIONS);
    const now = Date.UTC(2026, 11, 1);
    const start = now - DAYS * DAY;
    const raw = db.db;
    const ins =
      raw.prepare(`INSERT INTO miner_requests (corr_id, request_id, leg, engine, stream, received_at, ttft_ms, tpot_ms, e2e_ms, prompt_tokens, completion_tokens, cached_tokens, proof_ms, outcome, finish_reason, cause)
      VALUES (?, ?, ?, 'engine-0', 1, ?, 120, 12, 900, 1200, 300, 0, 40, 'ok', 'stop', NULL)`);
    const day = raw.prepare(ADD_TO_DAY_SQL);
    raw.exec('BEGIN');
    for (let i = 0; i < ROWS; i++) {
      const at = start + Math.floor((i / ROWS) * DAYS * DAY);
      ins.run(`corr-${i}`, `req-${i}-0123456789abcdef`, i % 8, at);
      day.run(dayStart(at), 1200, 300);
    }
    raw.exec('COMMIT');
    const sizeBefore = statSync(path).size;
    const rowsSql = raw.prepare(
      "SELECT COUNT(*) AS n, COALESCE(SUM(prompt_tokens),0) AS p, COALESCE(SUM(completion_tokens),0) AS c FROM miner_requests WHERE outcome = 'ok' AND received_at >= ? AND received_at < ?",
    );
    const old = { all: timeIt(() => rowsSql.get(0, Number.MAX_SAFE_INTEGER), 5), week: timeIt(() => rowsSql.get(now - 7 * DAY, Number.MAX_SAFE_INTEGER), 5) };
    const cur = { all: timeIt(() => localTokens(db, 0), 5), week: timeIt(() => localTokens(db, now - 7 * DAY - 3_600_000), 5) };
    const same =
      JSON.stringify(localTokens(db, 0)) ===
      JSON.stringify((({ n, p, c }) => ({ requests: n, promptTokens: p, completionTokens: c }))(rowsSql.get(0, Number.MAX_SAFE_INTEGER) as { n: number; p: number; c: number }));
    console.log(`${ROWS.toLocaleString('en')} request rows over ${DAYS} days, ${(sizeBefore / 2 ** 20).toFixed(0)} MiB; the two ways agree on all-time totals: ${same}`);
    console.log(`all-time totals: rows ${ms(pct(old.all, 0.5))} (reference) vs daily totals ${ms(pct(cur.all, 0.5), 2)} (median of 5): ${(pct(old.all, 0.5) / pct(cur.all, 0.5)).toFixed(0)}x`);
    console.log(`last-week totals: rows ${ms(pct(old.week, 0.5))} vs daily totals + partial days ${ms(pct(cur.week, 0.5), 2)}: ${(pct(old.week, 0.5) / pct(cur.week, 0.5)).toFixed(1)}x`);
    goal('history all-time totals at 1.5 M rows', pct(cur.all, 0.5), 'ms', '<', 5);

    // The first prune on this database: rows older than the kept days, in batches with a pause between.
    const holds: number[] = [];
    let last = performance.now();
    const t0 = performance.now();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const r = await pruneRequestHistory(db, now, {
      pause: async () => {
        holds.push(performance.now() - last);
        peak = Math.max(peak, process.memoryUsage().rss);
        await new Promise<void>((res) => setImmediate(res));
        last = performance.now();
      },
    });
    const total = performance.now() - t0;
    console.log(
      `first prune: ${r.requests.toLocaleString('en')} rows in ${ms(total, 0)}, ${holds.length} batches; thread held p50 ${ms(pct(holds, 0.5))}, max ${ms(Math.max(...holds))}; peak RSS +${((peak - rss0) / 2 ** 20).toFixed(0)} MiB`,
    );
    console.log(`after the prune, all-time totals still agree: ${JSON.stringify(localTokens(db, 0)) === JSON.stringify({ requests: ROWS, promptTokens: ROWS * 1200, completionTokens: ROWS * 300 })}`);
    goal('history prune longest hold between pauses', Math.max(...holds), 'ms', '<', 100);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
