// Miner engine snapshots: produced by electron/engine/miner, pushed to the UI. Plain data only:
// no Node types, and never the miner key, a prompt or a completion.

/** Where the miner stands with the gateway, in the order a user sees them go by. */
export type MinerPhase =
  | 'stopped'
  | 'starting-serve'
  | 'connecting'
  | 'waiting-for-probe'
  | 'probing'
  | 'active'
  | 'pulled'
  | 'denied'
  | 'reconnecting'
  /** The engine's serve failed its health gate: legs withdrawn until it is healthy again. */
  | 'withdrawn'
  | 'failed';

export interface MinerTransition {
  at: number;
  phase: MinerPhase;
  /** Plain words: "connecting (5 of 8 legs)", "denied: unknown miner key". */
  detail: string;
}

/** `withdrawn`: not dialed while the engine's serve is unhealthy (its old socket drains). */
export type LegStatus = 'dialing' | 'open' | 'admitted' | 'denied' | 'backoff' | 'closed' | 'withdrawn';

export interface LegSnapshot {
  /** The gateway worker index this leg dials (`<GW>/<index>`). */
  index: number;
  url: string;
  status: LegStatus;
  denyReason: string | null;
  /** Requests in flight on this leg, draining sockets included. */
  inflight: number;
  /** Old sockets kept open after a `reconnect` until their requests answer. */
  draining: number;
  connectedAt: number | null;
  dials: number;
  lastError: string | null;
  nextRetryAt: number | null;
}

export type RequestOutcome = 'ok' | 'error' | 'cancelled';

/** Metadata of one served request: never its prompt or completion. */
export interface MinerRequestRecord {
  corrId: string;
  requestId: string;
  leg: number;
  engine: string;
  stream: boolean;
  receivedAt: number;
  /** ms from the serve frame to the first token the serve produced. */
  ttftMs: number | null;
  /** Mean ms per output token after the first. */
  tpotMs: number | null;
  e2eMs: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  proofMs: number | null;
  outcome: RequestOutcome;
  finishReason: string | null;
  /** Short cause on error: "serve 400: input too long", "leg closed before answer". */
  cause: string | null;
}

export interface LatencySummary {
  p50: number | null;
  p99: number | null;
  count: number;
}

export interface MinerStats {
  windowMs: number;
  requests: number;
  ok: number;
  errors: number;
  cancelled: number;
  /** ok / (ok + errors); cancelled requests leave the denominator like the gateway's 499. */
  acceptanceRate: number | null;
  ttftMs: LatencySummary;
  tpotMs: LatencySummary;
  e2eMs: LatencySummary;
  tokensPerSecond: number;
  inflight: number;
  inflightPeak: number;
}

export interface ModelTargets {
  ttftP99Ms: number;
  tpotP99Ms: number;
  acceptance: number;
}

export type ForecastStatus = 'no-data' | 'on-track' | 'at-risk' | 'failing';

export interface GateForecast {
  status: ForecastStatus;
  /** "on track", "at risk: TTFT p99 84 s of 100 s". */
  text: string;
  /** The first gate that is at risk or failing, in the gateway's order. */
  gate: 'acceptance' | 'ttft' | 'tpot' | 'cheat' | null;
}

export interface LoopHealth {
  /** p99 over the probe's recent samples (`windowMs` of them); max and stalls count since the miner started. */
  lagP99Ms: number;
  windowMs: number;
  lagMaxMs: number;
  /** Samples where the event loop stalled for at least 1 s. */
  stalls: number;
  inflightAtMaxLag: number;
}

export interface SelfAuditSummary {
  audited: number;
  skipped: number;
  failures: number;
  /** Mean top-k exponent mismatch / k over the last audits, as the auditor scores it. */
  lastScore: number | null;
  meanScore: number | null;
  maxScore: number | null;
  threshold: number;
  warning: string | null;
  /** How a request is re-run without its prefix cache: on another engine, or on the same one after /flush_cache while idle. */
  mode?: 'other-engine' | 'flush-when-idle';
  flushes?: number;
  /** A sample waits for the serve to go idle (single engine). */
  waiting?: boolean;
  skipReasons?: Array<{ reason: string; count: number }>;
}

/** KV-cache pressure of the serve(s), as the newer reference worker reports it (`/get_load`). */
export interface KvLoad {
  /** KV tokens held, summed over the schedulers. */
  used: number;
  reqs: number;
  waiting: number;
  pending: number;
  ranks: number;
  /** KV pool size in tokens, when the serve says (`/get_server_info`). */
  limit?: number;
  /** used / limit, 0..1. */
  frac?: number;
}

/** The engine's serve as the health gate sees it (serve-health.ts). */
export interface ServeHealthView {
  /** Legs withdrawn because the serve failed its health gate. */
  withdrawn: boolean;
  cause: string | null;
  since: number | null;
  kv: KvLoad | null;
}

export interface MinerCapacityView {
  maxInflightTotal: number;
  perLeg: number;
  legs: number;
  maxInputTokens: number;
  maxOutputTokens: number;
  maxRequestS: number;
}

/**
 * What the probe-to-active estimate counts (the gateway never says "active": the panel calls a worker active once
 * its traffic outlasts the probe window with enough answered requests). Shown as the qualification's progress.
 */
export interface ProbeProgress {
  windowMs: number;
  minRequests: number;
  firstServeAt: number | null;
  servedOk: number;
  legsAdmitted: number;
}

export interface MinerSnapshot {
  version: number;
  phase: MinerPhase;
  detail: string;
  since: number;
  history: MinerTransition[];
  gatewayUrl: string | null;
  gatewayWorkers: number | null;
  /** Legs the plan opens; fewer than 8 is said, never hidden. */
  legsPlanned: number;
  legsLive: number;
  legsWarning: string | null;
  legs: LegSnapshot[];
  model: string | null;
  modelRoot: string | null;
  workerName: string | null;
  workerId: string | null;
  capacity: MinerCapacityView | null;
  stats: MinerStats;
  targets: ModelTargets;
  forecast: GateForecast;
  loop: LoopHealth;
  audit: SelfAuditSummary;
  recent: MinerRequestRecord[];
  /** Absent from snapshots made before the health gate existed. */
  serveHealth?: ServeHealthView;
  /** The probe estimate's inputs (absent from an older engine). */
  probe?: ProbeProgress;
}

/** One self-audit: the sent proof re-verified locally against recomputed activations. */
export interface SelfAuditRecord {
  at: number;
  requestId: string;
  /** Mean top-k exponent mismatches / k; null when the audit could not run. */
  score: number | null;
  chunks: number;
  error: string | null;
}

/** Chart history from the database: per key, [time ms, value] pairs averaged per bucket. */
export interface SeriesHistoryResponse {
  windowMs: number;
  bucketMs: number;
  series: Record<string, Array<[number, number]>>;
}

/**
 * How long each request's own row is kept (History, CSV, per-epoch tokens). Older requests survive as daily
 * totals, so all-time token counts stay whole while the database stops growing on a rig left for months.
 */
export const REQUEST_ROWS_KEEP_DAYS = 90;

/** The window every miner figure is computed over, and how a label names it ("last 5 min"). */
export const STATS_WINDOW_MS = 5 * 60_000;
export function windowLabel(ms: number): string {
  const min = Math.round(ms / 60_000);
  return min < 60 || min % 60 !== 0 ? `last ${min} min` : `last ${min / 60} h`;
}
