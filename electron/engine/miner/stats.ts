// Rolling request statistics and the per-epoch gate forecast (PROTOCOL 7's gates, in order),
// computed from the request records the miner keeps: metadata only.
import type { GateForecast, LatencySummary, MinerRequestRecord, MinerStats, ModelTargets } from '../../../shared/miner.ts';

/**
 * qual_ttft_p99_ms / qual_tpot_p99_ms are not published. TTFT: operators report the gate near
 * 100 s. TPOT: an assumption (1 s per token would fail any buyer); both are overridable.
 */
export const DEFAULT_TARGETS: ModelTargets = { ttftP99Ms: 100_000, tpotP99Ms: 1_000, acceptance: 0.99 };

/** Below this many finished requests a gate has too little data to say anything. */
export const MIN_SAMPLE = 20;
/** A latency p99 above this share of its ceiling is "at risk". */
const RISK_SHARE = 0.8;

export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), count: sorted.length };
}

/**
 * The miner's figures over `windowMs`: the requests received in the window (the same rule as the
 * History table's time filter, so a table filtered to the window recomputes the same numbers).
 */
export function computeStats(records: readonly MinerRequestRecord[], now: number, windowMs: number, inflight: number, inflightPeak: number): MinerStats {
  const inWindow = records.filter((r) => r.receivedAt >= now - windowMs);
  const ok = inWindow.filter((r) => r.outcome === 'ok');
  const errors = inWindow.filter((r) => r.outcome === 'error').length;
  const cancelled = inWindow.filter((r) => r.outcome === 'cancelled').length;
  const tokens = ok.reduce((n, r) => n + r.completionTokens, 0);
  const span = Math.min(windowMs, Math.max(1, now - Math.min(...inWindow.map((r) => r.receivedAt), now)));
  return {
    windowMs,
    requests: inWindow.length,
    ok: ok.length,
    errors,
    cancelled,
    acceptanceRate: ok.length + errors > 0 ? ok.length / (ok.length + errors) : null,
    ttftMs: summarize(ok.map((r) => r.ttftMs).filter((v): v is number => v !== null)),
    tpotMs: summarize(ok.map((r) => r.tpotMs).filter((v): v is number => v !== null)),
    e2eMs: summarize(ok.map((r) => r.e2eMs)),
    tokensPerSecond: inWindow.length > 0 ? Math.round((tokens / (span / 1000)) * 10) / 10 : 0,
    inflight,
    inflightPeak,
  };
}

function secs(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/**
 * The gates in the gateway's order; the first that fails or is at risk names the forecast.
 * `cheatWarning` comes from the self-audit (mismatch drifting toward the auditor's threshold).
 */
export function forecastGates(stats: MinerStats, targets: ModelTargets, cheatWarning: string | null): GateForecast {
  const finished = stats.ok + stats.errors;
  if (finished < MIN_SAMPLE && cheatWarning === null) {
    return { status: 'no-data', text: `not enough requests yet to forecast (${finished} of ${MIN_SAMPLE})`, gate: null };
  }
  type Finding = { status: 'at-risk' | 'failing'; text: string; gate: GateForecast['gate'] };
  const findings: Finding[] = [];
  if (finished >= MIN_SAMPLE && stats.acceptanceRate !== null) {
    const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
    if (stats.acceptanceRate < targets.acceptance) findings.push({ status: 'failing', text: `acceptance ${pct(stats.acceptanceRate)} below ${pct(targets.acceptance)}`, gate: 'acceptance' });
    else if (stats.acceptanceRate < targets.acceptance + (1 - targets.acceptance) / 2)
      findings.push({ status: 'at-risk', text: `acceptance ${pct(stats.acceptanceRate)} of ${pct(targets.acceptance)}`, gate: 'acceptance' });
  }
  const latency = (gate: 'ttft' | 'tpot', label: string, p99: number | null, ceiling: number) => {
    if (p99 === null || finished < MIN_SAMPLE) return;
    if (p99 > ceiling) findings.push({ status: 'failing', text: `${label} p99 ${secs(p99)} above ${secs(ceiling)}`, gate });
    else if (p99 > ceiling * RISK_SHARE) findings.push({ status: 'at-risk', text: `${label} p99 ${secs(p99)} of ${secs(ceiling)}`, gate });
  };
  latency('ttft', 'TTFT', stats.ttftMs.p99, targets.ttftP99Ms);
  latency('tpot', 'TPOT', stats.tpotMs.p99, targets.tpotP99Ms);
  if (cheatWarning !== null) findings.push({ status: 'at-risk', text: cheatWarning, gate: 'cheat' });
  const first = findings.find((f) => f.status === 'failing') ?? findings[0];
  if (!first) return { status: 'on-track', text: 'on track', gate: null };
  return { status: first.status, text: `${first.status === 'failing' ? 'failing' : 'at risk'}: ${first.text}`, gate: first.gate };
}
