// Chart history kept in the database, so a chart opens with the last 24 h instead of an empty
// window. Samples are thinned on write (one per key per `minGapMs`), pruned past `keepMs`, and
// read back averaged into buckets so a 24 h window stays a few hundred points per series.
import type { SeriesHistoryResponse } from '../../../shared/miner.ts';
import { firstSchema, type Database } from './database.ts';

export const SERIES_MIGRATIONS = firstSchema(
  'series',
  'chart samples: key, time, value',
  'CREATE TABLE series_samples (key TEXT NOT NULL, at INTEGER NOT NULL, v REAL NOT NULL)',
  'CREATE INDEX series_samples_key_at ON series_samples (key, at)',
  'CREATE INDEX series_samples_at ON series_samples (at)',
);

/** Keys look like `gpu.0.util` or `miner.rig.ttft`: short, printable, never user text. */
const KEY = /^[A-Za-z0-9_.:-]{1,80}$/;
export const MAX_WINDOW_MS = 7 * 86_400_000;

export class SeriesStore {
  private readonly db: Database;
  private readonly lastAt = new Map<string, number>();
  private readonly minGapMs: number;
  private readonly keepMs: number;
  private writes = 0;

  constructor(db: Database, opts: { minGapMs?: number; keepMs?: number } = {}) {
    this.db = db;
    this.minGapMs = opts.minGapMs ?? 15_000;
    this.keepMs = opts.keepMs ?? MAX_WINDOW_MS;
    db.migrate(SERIES_MIGRATIONS);
  }

  /** Records one sample unless this key had one less than `minGapMs` ago; bad keys and non-finite values are dropped. */
  record(key: string, at: number, v: number | null | undefined): boolean {
    if (!KEY.test(key) || v === null || v === undefined || !Number.isFinite(v) || !Number.isFinite(at)) return false;
    const last = this.lastAt.get(key);
    if (last !== undefined && at - last < this.minGapMs) return false;
    this.lastAt.set(key, at);
    this.db.db.prepare('INSERT INTO series_samples (key, at, v) VALUES (?, ?, ?)').run(key, Math.round(at), v);
    if (++this.writes % 500 === 0) this.prune(at);
    return true;
  }

  prune(now: number): void {
    this.db.db.prepare('DELETE FROM series_samples WHERE at < ?').run(now - this.keepMs);
  }

  /**
   * Every key with samples in [now - windowMs, now], averaged into `points` buckets (the bucket's
   * mean value at the bucket's mean time). Keys may be limited to a prefix (`gpu.`).
   */
  query(now: number, windowMs: number, points: number, prefix = ''): SeriesHistoryResponse {
    const win = Math.min(Math.max(60_000, windowMs), MAX_WINDOW_MS);
    const n = Math.min(Math.max(10, Math.floor(points)), 2000);
    const bucket = Math.max(1, Math.ceil(win / n));
    const since = now - win;
    const rows = this.db.db
      .prepare(
        `SELECT key, CAST(AVG(at) AS INTEGER) AS at, AVG(v) AS v FROM series_samples
         WHERE at >= ? AND at <= ? AND substr(key, 1, ?) = ?
         GROUP BY key, CAST((at - ?) / ? AS INTEGER) ORDER BY key, at`,
      )
      .all(since, now, prefix.length, prefix, since, bucket) as Array<{ key: string; at: number; v: number }>;
    const series: SeriesHistoryResponse['series'] = {};
    for (const r of rows) {
      // A key named like an Object.prototype member must not reach a prototype: own, null-prototype map.
      if (!Object.hasOwn(series, r.key)) Object.defineProperty(series, r.key, { value: [], enumerable: true, writable: true });
      series[r.key]!.push([r.at, r.v]);
    }
    return { windowMs: win, bucketMs: bucket, series };
  }
}
