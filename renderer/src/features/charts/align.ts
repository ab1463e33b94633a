// Pure helpers for the chart wrapper: align several series on one x axis, pick a y range.

export interface Point {
  at: number;
  v: number | null;
}

/**
 * uPlot wants one shared x array and a y array per series. Points are merged on their timestamps
 * (ms -> s); a series without a point at some x gets null there, which uPlot draws as a gap.
 * Points outside [from, to] are dropped; non-finite values become null.
 */
export function alignSeries(series: ReadonlyArray<ReadonlyArray<Point>>, from: number, to: number): [number[], ...Array<Array<number | null>>] {
  const xs = new Set<number>();
  for (const s of series) for (const p of s) if (p.at >= from && p.at <= to) xs.add(p.at);
  const sorted = [...xs].sort((a, b) => a - b);
  const index = new Map(sorted.map((x, i) => [x, i]));
  const ys = series.map((s) => {
    const y: Array<number | null> = new Array<number | null>(sorted.length).fill(null);
    for (const p of s) {
      const i = index.get(p.at);
      if (i !== undefined) y[i] = p.v !== null && Number.isFinite(p.v) ? p.v : null;
    }
    return y;
  });
  return [sorted.map((x) => x / 1000), ...ys];
}

/** The newest non-null value of a series: what its legend says when the cursor is not on the chart. */
export function latest(points: ReadonlyArray<Point>): number | null {
  for (let i = points.length - 1; i >= 0; i--) {
    const v = points[i]!.v;
    if (v !== null && Number.isFinite(v)) return v;
  }
  return null;
}

/**
 * A log-scale range that shows both the data and the gate: decades from below the smallest value to
 * above the gate, so a 0.4 s line and a 100 s gate are both readable on one chart.
 */
export function logRange(values: ReadonlyArray<number | null>, gate: number | null): [number, number] {
  const pos = values.filter((v): v is number => v !== null && v > 0);
  const lo = Math.min(...pos, gate ?? Infinity);
  const hi = Math.max(...pos, gate ?? 0);
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi <= 0) return [0.01, 100];
  return [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi * 1.2))];
}

/** "last 30 min", "last 24 h": the visible window in words (one wording, from shared/miner.ts). */
export { windowLabel as windowWords } from '../../../../shared/miner.ts';
