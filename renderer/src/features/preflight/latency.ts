/** A latency with its unit: milliseconds under 10 s, seconds above. */
export const latency = (v: number | null) => (v === null ? '—' : v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`);
