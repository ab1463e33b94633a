import { useEffect, useState } from 'react';
import { engineApi } from '../../stores/engine-store.ts';
import type { Point } from './align.ts';

/** Chart history from the database, by key (`gpu.0.util`, `miner.0.ttft`: shared/series.ts names them). */
export type SeriesHistory = Record<string, Point[]>;

/**
 * Loads the downsampled history of the window once, and again every few minutes while shown. A failed
 * load is kept as a sentence (the charts then show live points only, and say so), never swallowed.
 */
export function useSeriesHistory(windowMs: number, prefix?: string): { history: SeriesHistory; error: string | null } {
  const [history, setHistory] = useState<SeriesHistory>({});
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const load = () =>
      void engineApi()
        .invoke('history.series', { windowMs, points: 300, ...(prefix ? { prefix } : {}) })
        .then((r) => {
          if (!live) return;
          if (!r.ok) {
            setError(`The stored chart history could not be loaded (${r.error.message}): the charts show the points since this page opened. It is asked again in 2 minutes.`);
            return;
          }
          const out: SeriesHistory = {};
          for (const [k, pts] of Object.entries(r.value.series)) out[k] = pts.map(([at, v]) => ({ at, v }));
          setHistory(out);
          setError(null);
        });
    load();
    const t = setInterval(load, 120_000);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [windowMs, prefix]);
  return { history, error };
}

/** Stored history before the first live point, then the live points: no overlap, no empty window after a restart. */
export function withHistory(history: SeriesHistory | undefined, key: string, live: Point[]): Point[] {
  const past = history?.[key];
  if (!past || past.length === 0) return live;
  const firstLive = live[0]?.at ?? Infinity;
  return [...past.filter((p) => p.at < firstLive), ...live];
}
