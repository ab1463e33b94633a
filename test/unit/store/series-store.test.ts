import { describe, expect, it } from 'vitest';
import { Database } from '../../../electron/engine/store/database.ts';
import { SeriesStore } from '../../../electron/engine/store/series-store.ts';
import { recordServe } from '../../../electron/engine/store/series-recorder.ts';
import type { ServeSnapshot } from '../../../shared/serve.ts';

describe('chart history in the database', () => {
  it('thins samples per key, drops hostile keys and non-finite values', () => {
    const db = new Database(':memory:');
    const s = new SeriesStore(db, { minGapMs: 10_000 });
    expect(s.record('gpu.0.util', 1000, 50)).toBe(true);
    expect(s.record('gpu.0.util', 5000, 60)).toBe(false); // too soon
    expect(s.record('gpu.1.util', 5000, 60)).toBe(true); // another key
    for (const bad of ['', 'x'.repeat(81), 'a b', 'gpu;DROP TABLE series_samples', 'ключ']) expect(s.record(bad, 20_000, 1)).toBe(false);
    for (const v of [NaN, Infinity, null, undefined]) expect(s.record('gpu.2.util', 30_000, v as number | null)).toBe(false);
    expect(s.record('gpu.2.util', NaN, 1)).toBe(false);
    const q = s.query(60_000, 3_600_000, 100);
    expect(Object.keys(q.series).sort()).toEqual(['gpu.0.util', 'gpu.1.util']);
    db.close();
  });

  it('prototype-named keys stay plain data', () => {
    const db = new Database(':memory:');
    const s = new SeriesStore(db, { minGapMs: 0 });
    expect(s.record('__proto__', 1000, 7)).toBe(true);
    expect(s.record('constructor', 1000, 8)).toBe(true);
    const q = s.query(2000, 3_600_000, 100);
    expect(Object.getPrototypeOf(q.series)).toBe(Object.prototype);
    expect(Object.hasOwn(q.series, '__proto__')).toBe(true);
    expect(q.series['__proto__' as string]).toEqual([[1000, 7]]);
    expect(JSON.parse(JSON.stringify(q)).series.constructor).toEqual([[1000, 8]]);
    db.close();
  });

  it('answers the last 24 h downsampled into buckets, by prefix, and prunes past the keep time', () => {
    const db = new Database(':memory:');
    const s = new SeriesStore(db, { minGapMs: 0, keepMs: 2 * 86_400_000 });
    const now = 3 * 86_400_000;
    for (let t = now - 86_400_000; t <= now; t += 30_000) s.record('gpu.0.temp', t, 60 + ((t / 30_000) % 2));
    s.record('miner.0.tps', now - 1000, 12.5);
    s.record('gpu.0.temp', now - 2.5 * 86_400_000, 99); // older than keepMs
    const q = s.query(now, 86_400_000, 288, 'gpu.');
    expect(q.bucketMs).toBe(300_000);
    expect(Object.keys(q.series)).toEqual(['gpu.0.temp']);
    const pts = q.series['gpu.0.temp']!;
    expect(pts.length).toBeGreaterThanOrEqual(288);
    expect(pts.length).toBeLessThanOrEqual(289);
    expect(pts.every(([, v]) => v >= 60 && v <= 61)).toBe(true);
    expect(pts.every(([at], i) => i === 0 || at > pts[i - 1]![0])).toBe(true);
    // Window and point count are clamped, whatever the caller asks.
    expect(s.query(now, 10, 1).windowMs).toBe(60_000);
    expect(s.query(now, 1e15, 1e9).windowMs).toBe(7 * 86_400_000);
    s.prune(now);
    const all = db.db.prepare('SELECT MIN(at) AS m FROM series_samples').get() as { m: number };
    expect(all.m).toBeGreaterThanOrEqual(now - 2 * 86_400_000);
    db.close();
  });

  it('records the newest GPU and engine points of a serve snapshot', () => {
    const db = new Database(':memory:');
    const s = new SeriesStore(db, { minGapMs: 0 });
    const snap = {
      version: 1,
      runtime: 'python',
      maxInflight: 8,
      engines: [],
      gpus: [{ index: 0, name: 'RTX 4090', points: [{ at: 1000, utilizationPct: 97, memoryUsedMiB: 20480, memoryTotalMiB: 24564, temperatureC: 71, powerDrawW: 420, powerLimitW: 450 }] }],
    } as ServeSnapshot;
    recordServe(s, snap);
    recordServe(s, null);
    const q = s.query(2000, 3_600_000, 100);
    expect(q.series['gpu.0.util']).toEqual([[1000, 97]]);
    expect(q.series['gpu.0.mem']).toEqual([[1000, 20]]);
    expect(q.series['gpu.0.power']).toEqual([[1000, 420]]);
    db.close();
  });
});
