import type { BackoffOptions } from '../lib/backoff.ts';

export interface EngineTimings {
  backoff: BackoffOptions;
  /** Ready this long without trouble: the next crash starts the backoff from the beginning again. */
  stableUptimeMs: number;
  stopGraceMs: number;
  readyTimeoutMs: number;
  /** Probe cadence between the ready line and the first healthy answer. */
  startupProbeMs: number;
  healthIntervalMs: number;
  /** /health_generate itself may take up to 20 s (sglang's own timeout) on a loaded serve. */
  healthTimeoutMs: number;
  unhealthyAfter: number;
  metricsIntervalMs: number;
  stallMs: number;
  seriesCap: number;
}

export const DEFAULT_TIMINGS: EngineTimings = {
  backoff: { initialMs: 5_000, maxMs: 300_000, factor: 2, jitter: 0.2 },
  stableUptimeMs: 600_000,
  stopGraceMs: 30_000,
  readyTimeoutMs: 2_400_000,
  startupProbeMs: 2_000,
  healthIntervalMs: 10_000,
  healthTimeoutMs: 30_000,
  unhealthyAfter: 3,
  metricsIntervalMs: 15_000,
  stallMs: 300_000,
  seriesCap: 240,
};
