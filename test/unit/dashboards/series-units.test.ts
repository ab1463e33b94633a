// shared/series.ts is the one home of the chart keys and units: the engine's recorder stores each
// miner, GPU and serve figure under its key in its chart unit, and a missing figure stores nothing.
import { describe, expect, it } from 'vitest';
import { recordMiners, recordServe } from '../../../electron/engine/store/series-recorder.ts';
import type { SeriesStore } from '../../../electron/engine/store/series-store.ts';
import type { MinerSnapshot } from '../../../shared/miner.ts';
import type { ServeSnapshot } from '../../../shared/serve.ts';
import { minerSeriesValue, seriesKey, toUnit } from '../../../shared/series.ts';

/** Records what would be stored (the real store refuses null and non-finite values the same way). */
function recorder(): { store: SeriesStore; rows: Map<string, number> } {
  const rows = new Map<string, number>();
  const store = {
    record: (key: string, _at: number, v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? false : (rows.set(key, v), true)),
  } as unknown as SeriesStore;
  return { store, rows };
}

const stats = (over: Partial<MinerSnapshot['stats']>): MinerSnapshot['stats'] =>
  ({
    windowMs: 300_000,
    requests: 10,
    ok: 9,
    errors: 1,
    cancelled: 0,
    acceptanceRate: 0.9,
    ttftMs: { p50: 100, p90: 200, p99: 1500, mean: 150 },
    tpotMs: { p50: 10, p90: 20, p99: 35, mean: 12 },
    e2eMs: { p50: 1, p90: 2, p99: 3, mean: 2 },
    tokensPerSecond: 42.5,
    inflight: 0,
    inflightPeak: 3,
    ...over,
  }) as MinerSnapshot['stats'];

describe('chart series keys and units (shared/series.ts)', () => {
  it('stores the miner figures as the Mine page draws them: tok/s, TTFT s, TPOT ms, acceptance %', () => {
    const { store, rows } = recorder();
    recordMiners(store, [{ phase: 'active', stats: stats({}) } as MinerSnapshot], 1_000);
    expect(Object.fromEntries(rows)).toEqual({ 'miner.0.tps': 42.5, 'miner.0.ttft': 1.5, 'miner.0.tpot': 35, 'miner.0.accept': 90 });
    expect(minerSeriesValue.ttft(stats({}))).toBe(toUnit.seconds(1500));
  });

  it('stores nothing for a missing figure or a stopped miner', () => {
    const { store, rows } = recorder();
    recordMiners(
      store,
      [
        { phase: 'active', stats: stats({ acceptanceRate: null, ttftMs: { p50: null, p90: null, p99: null, mean: null } as never }) } as MinerSnapshot,
        { phase: 'stopped', stats: stats({}) } as MinerSnapshot,
      ],
      1_000,
    );
    expect([...rows.keys()].sort()).toEqual(['miner.0.tpot', 'miner.0.tps']);
  });

  it('stores GPU memory in GiB and serve latencies in s under the keys the charts read', () => {
    const { store, rows } = recorder();
    const serve = {
      gpus: [{ index: 1, points: [{ at: 5, utilizationPct: 80, memoryUsedMiB: 2048, memoryTotalMiB: 24_576, temperatureC: 60, powerDrawW: 300, powerLimitW: 450 }] }],
      engines: [{ index: 0, metrics: [{ at: 5, genTokensPerS: 900, runningReqs: 4, ttftP99S: 0.8, itlP99S: 0.02 }] }],
    } as unknown as ServeSnapshot;
    recordServe(store, serve);
    expect(rows.get(seriesKey.gpu(1, 'mem'))).toBe(2);
    expect(rows.get(seriesKey.gpu(1, 'power'))).toBe(300);
    expect(rows.get(seriesKey.engine(0, 'ttft'))).toBe(0.8);
    expect(rows.size).toBe(8);
  });
});
