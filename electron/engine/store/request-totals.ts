// Served-request totals over any window, and the pruning that keeps the miner's tables bounded. A request's
// own row lives REQUEST_ROWS_KEEP_DAYS; every ok request also adds to its UTC day's totals, which are kept
// for good. A window reads whole days from the totals and only its partial first and last days from rows,
// so "all time" costs a few hundred rows, not a scan of every request ever served.
import type { LocalTokens } from '../../../shared/earnings.ts';
import { REQUEST_ROWS_KEEP_DAYS } from '../../../shared/miner.ts';
import { DAY_MS, dayStart, MINER_MIGRATIONS } from './miner-tables.ts';
import type { Disposable } from '../lib/disposable.ts';
import { errorMessage } from '../../../shared/errors.ts';
import type { Logger } from '../lib/logger.ts';
import type { Database } from './database.ts';

const HORIZON_KEY = 'rows_pruned_before';

/** Rows received before this were pruned (their days live on as totals); 0 before the first prune. */
export function prunedBefore(db: Database): number {
  db.migrate(MINER_MIGRATIONS);
  const v = (db.db.prepare('SELECT value FROM miner_history_meta WHERE key = ?').get(HORIZON_KEY) as { value: unknown } | undefined)?.value;
  // A hand-edited or foreign value reads as "nothing pruned": counts may then miss pruned days, never invent them.
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0;
}

/**
 * Ok requests and their tokens received in [since, until). Null when the window starts inside a day whose
 * rows were pruned (only whole days are known there): say "not kept" rather than a short count.
 */
export function localTokens(db: Database, since: number, until = Number.MAX_SAFE_INTEGER): LocalTokens | null {
  const horizon = prunedBefore(db);
  const firstWhole = since <= 0 ? 0 : dayStart(since) === since ? since : dayStart(since) + DAY_MS;
  const endWhole = until >= Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : dayStart(until);
  const rows = db.db.prepare(
    "SELECT COUNT(*) AS n, COALESCE(SUM(prompt_tokens),0) AS p, COALESCE(SUM(completion_tokens),0) AS c FROM miner_requests WHERE outcome = 'ok' AND received_at >= ? AND received_at < ?",
  );
  const sum = (from: number, to: number): LocalTokens => {
    const r = rows.get(from, to) as { n: number; p: number; c: number };
    return { requests: r.n, promptTokens: r.p, completionTokens: r.c };
  };
  if (firstWhole >= endWhole) return since < horizon ? null : sum(since, until);
  if (since < firstWhole && since < horizon) return null;
  const days = db.db
    .prepare('SELECT COALESCE(SUM(requests),0) AS n, COALESCE(SUM(prompt_tokens),0) AS p, COALESCE(SUM(completion_tokens),0) AS c FROM miner_request_days WHERE day >= ? AND day < ?')
    .get(firstWhole, endWhole) as { n: number; p: number; c: number };
  const head = since < firstWhole ? sum(since, firstWhole) : null;
  const tail = endWhole < until ? sum(endWhole, until) : null;
  return {
    requests: days.n + (head?.requests ?? 0) + (tail?.requests ?? 0),
    promptTokens: days.p + (head?.promptTokens ?? 0) + (tail?.promptTokens ?? 0),
    completionTokens: days.c + (head?.completionTokens ?? 0) + (tail?.completionTokens ?? 0),
  };
}

export interface PruneResult {
  requests: number;
  audits: number;
  before: number;
}

/**
 * Deletes request rows and audit results older than the kept days (whole UTC days, so a day is either all
 * rows or all totals), a batch at a time with a pause between batches: a first prune of a months-old
 * database must not hold the engine's thread for seconds while requests are served.
 */
export async function pruneRequestHistory(db: Database, now: number, o: { keepDays?: number; batch?: number; pause?: () => Promise<void>; stopped?: () => boolean } = {}): Promise<PruneResult> {
  db.migrate(MINER_MIGRATIONS);
  const before = dayStart(now - (o.keepDays ?? REQUEST_ROWS_KEEP_DAYS) * DAY_MS);
  const batch = o.batch ?? 5000;
  const pause = o.pause ?? (() => new Promise<void>((r) => setImmediate(r)));
  // The horizon moves first: a crash halfway leaves rows the next prune removes, never a window counted short.
  if (before > prunedBefore(db)) {
    db.db.prepare('INSERT INTO miner_history_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(HORIZON_KEY, before);
  }
  const drain = async (sql: string): Promise<number> => {
    let total = 0;
    for (;;) {
      const n = Number(db.db.prepare(sql).run(before, batch).changes);
      total += n;
      if (n < batch) return total;
      await pause();
      if (o.stopped?.()) return total;
    }
  };
  const requests = await drain('DELETE FROM miner_requests WHERE id IN (SELECT id FROM miner_requests WHERE received_at < ? ORDER BY id LIMIT ?)');
  const audits = await drain('DELETE FROM miner_audits WHERE id IN (SELECT id FROM miner_audits WHERE at < ? ORDER BY id LIMIT ?)');
  return { requests, audits, before };
}

/** Prunes a minute after start, then hourly; a failure (disk full, locked) is logged and tried again next hour. */
export function keepRequestHistoryBounded(db: Database, log: Logger, o: { firstAfterMs?: number; everyMs?: number; now?: () => number } = {}): Disposable {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const run = async (): Promise<void> => {
    try {
      const r = await pruneRequestHistory(db, (o.now ?? Date.now)(), { stopped: () => stopped });
      if (r.requests + r.audits > 0)
        log.info(`history: pruned ${r.requests} request rows and ${r.audits} audit results from before ${new Date(r.before).toISOString().slice(0, 10)} (their daily totals stay)`);
    } catch (e) {
      if (!stopped) log.warn(`history: old request rows could not be pruned (${errorMessage(e)}); trying again in an hour`);
    }
    if (stopped) return;
    timer = setTimeout(() => void run(), o.everyMs ?? 3_600_000);
    timer.unref?.();
  };
  timer = setTimeout(() => void run(), o.firstAfterMs ?? 60_000);
  timer.unref?.();
  return {
    dispose: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
