// Feeds the chart history from the snapshots the engines already publish: the newest point of every
// GPU and engine series, and the miner's own figures (the same numbers its cards show). Keys and units:
// shared/series.ts, which the renderer's charts read too.
import type { MinerSnapshot } from '../../../shared/miner.ts';
import type { ServeSnapshot } from '../../../shared/serve.ts';
import { ENGINE_SERIES, engineSeriesValue, GPU_SERIES, gpuSeriesValue, MINER_SERIES, minerSeriesValue, seriesKey } from '../../../shared/series.ts';
import type { SeriesStore } from './series-store.ts';

export function recordServe(store: SeriesStore, s: ServeSnapshot | null): void {
  if (!s) return;
  for (const g of s.gpus) {
    const p = g.points[g.points.length - 1];
    if (!p) continue;
    for (const what of GPU_SERIES) store.record(seriesKey.gpu(g.index, what), p.at, gpuSeriesValue[what](p));
  }
  for (const e of s.engines) {
    const p = e.metrics[e.metrics.length - 1];
    if (!p) continue;
    for (const what of ENGINE_SERIES) store.record(seriesKey.engine(e.index, what), p.at, engineSeriesValue[what](p));
  }
}

export function recordMiners(store: SeriesStore, miners: readonly MinerSnapshot[], now: number): void {
  miners.forEach((m, i) => {
    if (m.phase === 'stopped') return;
    for (const what of MINER_SERIES) store.record(seriesKey.miner(i, what), now, minerSeriesValue[what](m.stats));
  });
}
