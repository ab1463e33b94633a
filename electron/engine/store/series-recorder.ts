// Feeds the chart history from the snapshots the engines already publish: the newest point of every
// GPU and engine series, and the miner's own figures (the same numbers its cards show).
import type { MinerSnapshot } from '../../../shared/miner.ts';
import type { ServeSnapshot } from '../../../shared/serve.ts';
import type { SeriesStore } from './series-store.ts';

/** Keys shared with the renderer's charts (renderer/src/features/charts/series-history.ts reads them). */
export const seriesKey = {
  gpu: (index: number, what: 'util' | 'mem' | 'temp' | 'power') => `gpu.${index}.${what}`,
  engine: (index: number, what: 'tps' | 'running' | 'ttft' | 'itl') => `engine.${index}.${what}`,
  miner: (worker: number, what: 'tps' | 'ttft' | 'tpot' | 'accept') => `miner.${worker}.${what}`,
};

export function recordServe(store: SeriesStore, s: ServeSnapshot | null): void {
  if (!s) return;
  for (const g of s.gpus) {
    const p = g.points[g.points.length - 1];
    if (!p) continue;
    store.record(seriesKey.gpu(g.index, 'util'), p.at, p.utilizationPct);
    store.record(seriesKey.gpu(g.index, 'mem'), p.at, p.memoryUsedMiB === null ? null : p.memoryUsedMiB / 1024);
    store.record(seriesKey.gpu(g.index, 'temp'), p.at, p.temperatureC);
    store.record(seriesKey.gpu(g.index, 'power'), p.at, p.powerDrawW);
  }
  for (const e of s.engines) {
    const p = e.metrics[e.metrics.length - 1];
    if (!p) continue;
    store.record(seriesKey.engine(e.index, 'tps'), p.at, p.genTokensPerS);
    store.record(seriesKey.engine(e.index, 'running'), p.at, p.runningReqs);
    store.record(seriesKey.engine(e.index, 'ttft'), p.at, p.ttftP99S);
    store.record(seriesKey.engine(e.index, 'itl'), p.at, p.itlP99S);
  }
}

export function recordMiners(store: SeriesStore, miners: readonly MinerSnapshot[], now: number): void {
  miners.forEach((m, i) => {
    if (m.phase === 'stopped') return;
    const s = m.stats;
    store.record(seriesKey.miner(i, 'tps'), now, s.tokensPerSecond);
    // TTFT in seconds (its unit on every page), TPOT in ms.
    store.record(seriesKey.miner(i, 'ttft'), now, s.ttftMs.p99 === null ? null : s.ttftMs.p99 / 1000);
    store.record(seriesKey.miner(i, 'tpot'), now, s.tpotMs.p99);
    store.record(seriesKey.miner(i, 'accept'), now, s.acceptanceRate === null ? null : s.acceptanceRate * 100);
  });
}
