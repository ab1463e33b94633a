// Served-request totals over any window stay exact while old request rows are pruned to daily totals,
// and the prune keeps the miner's tables bounded without holding the engine's thread.
import { describe, expect, it } from 'vitest';
import type { MinerRequestRecord, RequestOutcome } from '../../../shared/miner.ts';
import { RequestRecords } from '../../../electron/engine/miner/request-records.ts';
import { MINER_MIGRATIONS } from '../../../electron/engine/store/miner-tables.ts';
import { Database } from '../../../electron/engine/store/database.ts';
import { keepRequestHistoryBounded, localTokens, pruneRequestHistory, prunedBefore } from '../../../electron/engine/store/request-totals.ts';
import type { Logger } from '../../../electron/engine/lib/logger.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import { requestRecord } from '../../helpers/request-record.ts';
import { xorshiftRandom } from '../../helpers/xorshift.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 8, 1); // a UTC midnight

const rec = (i: number, receivedAt: number, outcome: RequestOutcome = 'ok') => requestRecord(i, receivedAt, { promptTokens: 100 + (i % 7), completionTokens: 20 + (i % 5), outcome });

/** What the rows alone say, the slow way: the reference every window is checked against. */
function bruteForce(records: MinerRequestRecord[], since: number, until: number) {
  const ok = records.filter((r) => r.outcome === 'ok' && r.receivedAt >= since && r.receivedAt < until);
  return { requests: ok.length, promptTokens: ok.reduce((n, r) => n + r.promptTokens, 0), completionTokens: ok.reduce((n, r) => n + r.completionTokens, 0) };
}

/** 120 days of requests at random times, one in five not ok. */
function seeded(db: Database): MinerRequestRecord[] {
  const rand = xorshiftRandom(53);
  const records = new RequestRecords(db, 60_000, 10);
  const all: MinerRequestRecord[] = [];
  for (let i = 0; i < 3000; i++) {
    const r = rec(i, T0 + Math.floor(rand() * 120 * DAY), rand() < 0.2 ? 'error' : 'ok');
    all.push(r);
    records.add(r, r.receivedAt);
  }
  return all;
}

describe('request totals', () => {
  it('answers any window exactly as the rows would, reading whole days from the daily totals', () => {
    const db = new Database(':memory:');
    const all = seeded(db);
    const rand = xorshiftRandom(7);
    const windows: [number, number][] = [
      [0, Number.MAX_SAFE_INTEGER],
      [T0 + 3 * DAY, T0 + 10 * DAY],
      [T0 + 5.5 * DAY, T0 + 5.7 * DAY],
      [T0 + 0.25 * DAY, Number.MAX_SAFE_INTEGER],
    ];
    for (let i = 0; i < 200; i++) {
      const a = T0 + Math.floor(rand() * 125 * DAY);
      windows.push([a, a + Math.floor(rand() * 30 * DAY)]);
    }
    for (const [since, until] of windows) expect(localTokens(db, since, until), `${since}..${until}`).toEqual(bruteForce(all, since, until));
    db.close();
  });

  it('prunes old rows to daily totals: all-time and recent windows unchanged, an old partial window says "not kept"', async () => {
    const db = new Database(':memory:');
    const all = seeded(db);
    for (let i = 0; i < 40; i++) db.write('INSERT INTO miner_audits (at, request_id, score, chunks, error) VALUES (?, ?, ?, ?, ?)', [T0 + i * 3 * DAY, `r${i}`, 0, 4, null]);
    const now = T0 + 120 * DAY + 3_600_000;
    const beforeAll = localTokens(db, 0);
    const beforeWeek = localTokens(db, now - 7 * DAY);
    let pauses = 0;
    const r = await pruneRequestHistory(db, now, { keepDays: 90, batch: 100, pause: async () => void pauses++ });
    const cut = T0 + 30 * DAY; // the UTC day 90 days before `now`
    expect(r.before).toBe(cut);
    expect(r.requests).toBe(all.filter((x) => x.receivedAt < cut).length);
    expect(pauses).toBeGreaterThan(3); // batched, yielding between batches
    expect(r.audits).toBe(10);
    expect(prunedBefore(db)).toBe(cut);
    const oldest = db.db.prepare('SELECT MIN(received_at) AS m FROM miner_requests').get() as { m: number };
    expect(oldest.m).toBeGreaterThanOrEqual(cut);
    expect(localTokens(db, 0)).toEqual(beforeAll);
    expect(localTokens(db, now - 7 * DAY)).toEqual(beforeWeek);
    // Whole pruned days are still known; part of one is not.
    expect(localTokens(db, T0 + 2 * DAY, T0 + 9 * DAY)).toEqual(bruteForce(all, T0 + 2 * DAY, T0 + 9 * DAY));
    expect(localTokens(db, T0 + 2.5 * DAY, T0 + 2.6 * DAY)).toBeNull();
    expect(localTokens(db, T0 + 2.5 * DAY, T0 + 40 * DAY)).toBeNull();
    // A second prune finds nothing more, and an earlier `now` never moves the horizon back.
    expect((await pruneRequestHistory(db, now)).requests).toBe(0);
    await pruneRequestHistory(db, now - 60 * DAY);
    expect(prunedBefore(db)).toBe(cut);
    db.close();
  });

  it('backfills the daily totals of a database written before they existed', () => {
    const db = new Database(':memory:');
    db.migrate({ domain: 'miner', migrations: MINER_MIGRATIONS.migrations.slice(0, 2) });
    const rows = [rec(1, T0 + 1000), rec(2, T0 + DAY + 5), rec(3, T0 + DAY + 9, 'cancelled')];
    const ins = db.db.prepare(
      'INSERT INTO miner_requests (corr_id, request_id, leg, engine, stream, received_at, e2e_ms, prompt_tokens, completion_tokens, cached_tokens, outcome) VALUES (?, ?, 0, ?, 1, ?, 1, ?, ?, 0, ?)',
    );
    for (const r of rows) ins.run(r.corrId, r.requestId, r.engine, r.receivedAt, r.promptTokens, r.completionTokens, r.outcome);
    expect(db.migrate(MINER_MIGRATIONS)).toBe(3);
    expect(db.db.prepare('SELECT day, requests FROM miner_request_days ORDER BY day').all()).toEqual([
      { day: T0, requests: 1 },
      { day: T0 + DAY, requests: 1 },
    ]);
    expect(localTokens(db, 0)).toEqual(bruteForce(rows, 0, Number.MAX_SAFE_INTEGER));
    db.close();
  });

  it('reads a hand-edited horizon as "nothing pruned" rather than trusting it', () => {
    const db = new Database(':memory:');
    db.migrate(MINER_MIGRATIONS);
    for (const bad of ["'soon'", '-5', '1.5', "x'00'"]) {
      db.db.exec(`INSERT INTO miner_history_meta (key, value) VALUES ('rows_pruned_before', ${bad}) ON CONFLICT(key) DO UPDATE SET value = excluded.value`);
      expect(prunedBefore(db), bad).toBe(0);
    }
    db.close();
  });

  it('keeps pruning on a schedule, and a prune that fails is logged, never thrown', async () => {
    const db = new Database(':memory:');
    seeded(db);
    const lines: string[] = [];
    const log: Logger = { ...silentLogger, info: (m: string) => void lines.push(`info ${m}`), warn: (m: string) => void lines.push(`warn ${m}`) };
    const job = keepRequestHistoryBounded(db, log, { firstAfterMs: 0, everyMs: 5, now: () => T0 + 120 * DAY });
    await expect.poll(() => lines.find((l) => l.startsWith('info history: pruned')), { timeout: 20_000 }).toMatch(/^info history: pruned \d+ request rows and 0 audit results from before 2026-10-01/);
    db.close();
    await expect.poll(() => lines.find((l) => l.startsWith('warn')), { timeout: 20_000 }).toMatch(/could not be pruned .*trying again in an hour/);
    await job.dispose();
  });
});
