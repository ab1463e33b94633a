// Chart series, one home for both sides: the key each is stored under (the engine's series recorder
// writes, the renderer's charts read) and the unit it is stored and drawn in, so a stored point and
// the live point beside it can never disagree on either.
import type { MinerStats } from './miner.ts';
import type { EngineMetricsPoint, GpuPoint } from './serve.ts';

export type GpuSeriesName = 'util' | 'mem' | 'temp' | 'power';
export type EngineSeriesName = 'tps' | 'running' | 'ttft' | 'itl';
export type MinerSeriesName = 'tps' | 'ttft' | 'tpot' | 'accept';

export const GPU_SERIES: readonly GpuSeriesName[] = ['util', 'mem', 'temp', 'power'];
export const ENGINE_SERIES: readonly EngineSeriesName[] = ['tps', 'running', 'ttft', 'itl'];
export const MINER_SERIES: readonly MinerSeriesName[] = ['tps', 'ttft', 'tpot', 'accept'];

export const seriesKey = {
  gpu: (index: number, what: GpuSeriesName) => `gpu.${index}.${what}`,
  engine: (index: number, what: EngineSeriesName) => `engine.${index}.${what}`,
  miner: (worker: number, what: MinerSeriesName) => `miner.${worker}.${what}`,
};

/** The unit conversions the charts use (figures travel in ms, MiB and shares of 1). */
export const toUnit = {
  seconds: (ms: number) => ms / 1000,
  gib: (mib: number) => mib / 1024,
  percent: (share: number) => share * 100,
};

const orNull = <T>(v: T | null, f: (x: T) => number): number | null => (v === null ? null : f(v));

/** A GPU sample per series, in its chart unit: %, GiB, °C, W. */
export const gpuSeriesValue: Record<GpuSeriesName, (p: GpuPoint) => number | null> = {
  util: (p) => p.utilizationPct,
  mem: (p) => orNull(p.memoryUsedMiB, toUnit.gib),
  temp: (p) => p.temperatureC,
  power: (p) => p.powerDrawW,
};

/** A serve metrics sample per series, in its chart unit: tok/s, requests, s, s. */
export const engineSeriesValue: Record<EngineSeriesName, (p: EngineMetricsPoint) => number | null> = {
  tps: (p) => p.genTokensPerS,
  running: (p) => p.runningReqs,
  ttft: (p) => p.ttftP99S,
  itl: (p) => p.itlP99S,
};

/** The miner's own figures per series, in their chart unit: tok/s, TTFT p99 s, TPOT p99 ms, acceptance %. */
export const minerSeriesValue: Record<MinerSeriesName, (s: MinerStats) => number | null> = {
  tps: (s) => s.tokensPerSecond,
  ttft: (s) => orNull(s.ttftMs.p99, toUnit.seconds),
  tpot: (s) => s.tpotMs.p99,
  accept: (s) => orNull(s.acceptanceRate, toUnit.percent),
};
