// How a latency, a share or a rate reads, in one place for the engine's sentences (qualification steps)
// and every page: TTFT in seconds, TPOT in ms, shares in %, throughput in tok/s. Two places formatting the
// same number differently ("7691 ms" here, "7.7 s" there) is what this file exists to prevent.

/** Seconds with the digits that matter at each size: 42, 7.7, 0.43, 0.012. */
export function secs(s: number): string {
  return s >= 10 ? s.toFixed(0) : s >= 1 ? s.toFixed(1) : s >= 0.1 ? s.toFixed(2) : s.toFixed(3);
}

/** Values only (no unit): the caller puts the unit beside it, or uses `withUnit`. */
export const fmt = {
  ttftS: (ms: number | null) => (ms === null ? '—' : secs(ms / 1000)),
  tpotMs: (ms: number | null) => (ms === null ? '—' : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1)),
  tps: (v: number | null) => (v === null ? '—' : v.toFixed(1)),
  pct: (share: number | null) => (share === null ? '—' : `${(share * 100).toFixed(1)}`),
  secs,
};

/** The same figures with their unit, for sentences: "7.7 s", "23.4 ms", "99.5 %". */
export const withUnit = {
  ttft: (ms: number) => `${fmt.ttftS(ms)} s`,
  tpot: (ms: number) => `${fmt.tpotMs(ms)} ms`,
  pct: (share: number) => `${fmt.pct(share)} %`,
};
