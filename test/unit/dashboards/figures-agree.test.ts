// One source per figure: for the same window, the Mine cards (computeStats -> minerFigures), the
// chart legends (the newest chart point, formatted by the chart's format) and the request table
// (History's rows filtered to the window, recomputed) read the same numbers, with the same units.
import { describe, expect, it } from 'vitest';
import { Database } from '../../../electron/engine/store/database.ts';
import { RequestRecords } from '../../../electron/engine/miner/request-records.ts';
import { computeStats, DEFAULT_TARGETS, percentile } from '../../../electron/engine/miner/stats.ts';
import { countRequestHistory, queryRequestHistory } from '../../../electron/engine/store/request-history.ts';
import { SeriesStore } from '../../../electron/engine/store/series-store.ts';
import { recordMiners } from '../../../electron/engine/store/series-recorder.ts';
import { STATS_WINDOW_MS, type MinerRequestRecord, type MinerSnapshot } from '../../../shared/miner.ts';
import { fmt, minerFigures } from '../../../renderer/src/features/mine/figures.ts';
import { latest } from '../../../renderer/src/features/charts/align.ts';
import { withHistory } from '../../../renderer/src/features/charts/series-history.ts';
import { requestRecord } from '../../helpers/request-record.ts';

// A served request with figures that vary by i (so percentiles and sums are not flat).
const rec = (i: number, at: number, over: Partial<MinerRequestRecord> = {}): MinerRequestRecord =>
  requestRecord(i, at, {
    ttftMs: 200 + ((i * 37) % 900),
    tpotMs: 20 + (i % 7),
    e2eMs: 4000 + (i % 5) * 100,
    promptTokens: 1000 + i,
    completionTokens: 300 + (i % 50),
    proofMs: 12,
    ...over,
  });

describe('Mine cards, chart legends and the request table agree', () => {
  it('for the same 5 min window, with a probe burst just outside it', () => {
    const db = new Database(':memory:');
    const records = new RequestRecords(db);
    const now = 10_000_000;
    // A probe burst 8 min ago with huge TTFTs: outside the 5 min window, it must not set the p99.
    for (let i = 0; i < 30; i++) records.add(rec(i, now - 8 * 60_000 + i * 100, { ttftMs: 40_000 + i }), now);
    // Steady traffic inside the window, a few failures and a cancel.
    for (let i = 30; i < 230; i++)
      records.add(
        rec(i, now - STATS_WINDOW_MS + 1000 + (i - 30) * 1400, i % 41 === 0 ? { outcome: 'error', cause: 'serve 502', ttftMs: null, tpotMs: null } : i % 59 === 0 ? { outcome: 'cancelled' } : {}),
        now,
      );

    const stats = computeStats(records.all(), now, STATS_WINDOW_MS, 0, 0);
    const cards = Object.fromEntries(minerFigures(stats, DEFAULT_TARGETS).map((f) => [f.id, f]));
    expect(cards.ttft!.label).toBe('TTFT p99, last 5 min');
    expect(cards.ttft!.unit).toBe('s');

    // The chart: the recorder stores the same stats; the page appends the live value as the newest point.
    const store = new SeriesStore(db);
    const snap = { phase: 'active', stats } as MinerSnapshot;
    recordMiners(store, [snap], now - 30_000);
    const hist = store.query(now, 3_600_000, 300, 'miner.');
    const history = Object.fromEntries(Object.entries(hist.series).map(([k, v]) => [k, v.map(([at, val]) => ({ at, v: val }))]));
    const ttftPoints = withHistory(history, 'miner.0.ttft', [{ at: now, v: stats.ttftMs.p99! / 1000 }]);
    const tpsPoints = withHistory(history, 'miner.0.tps', [{ at: now, v: stats.tokensPerSecond }]);
    expect(ttftPoints.length).toBe(2);
    expect(`${fmt.secs(latest(ttftPoints)!)}`).toBe(cards.ttft!.value);
    expect(fmt.tps(latest(tpsPoints))).toBe(cards.throughput!.value);
    // The stored point is the same statistic in the same unit (seconds), not ms.
    expect(ttftPoints[0]!.v).toBeCloseTo(stats.ttftMs.p99! / 1000, 9);

    // The request table (History) filtered to the same window recomputes the same figures.
    const since = now - STATS_WINDOW_MS;
    const rows = queryRequestHistory(db, { since, limit: 10_000 });
    expect(countRequestHistory(db, { since }).total).toBe(rows.length);
    const ok = rows.filter((r) => r.outcome === 'ok');
    const errors = rows.filter((r) => r.outcome === 'error').length;
    const ttfts = ok.map((r) => r.ttftMs!).sort((a, b) => a - b);
    expect(fmt.ttftS(percentile(ttfts, 99))).toBe(cards.ttft!.value);
    expect(fmt.pct(ok.length / (ok.length + errors))).toBe(cards.acceptance!.value);
    const tpots = ok.map((r) => r.tpotMs!).sort((a, b) => a - b);
    expect(fmt.tpotMs(percentile(tpots, 99))).toBe(cards.tpot!.value);
    // And the table cells use the card's unit: TTFT in s, formatted the same way.
    expect(fmt.ttftS(ok[0]!.ttftMs)).toMatch(/^\d+(\.\d+)?$/);
    // The probe burst is outside: a p99 of 40 s would show "40".
    expect(Number(cards.ttft!.value)).toBeLessThan(2);
    db.close();
  });
});
