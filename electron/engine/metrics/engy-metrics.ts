import type { MinerPhase } from '../../../shared/miner.ts';
import type { EngineState } from '../../../shared/serve.ts';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { renderFamilies } from './exposition.ts';
import { relabelSglang, type EngineScrape } from './sglang-relabel.ts';

// The stable metric names a fleet's Prometheus and the shipped Grafana dashboard rely on.
// Renaming one breaks every operator's alerts: add new names, never rename (docs/fleet-monitoring.md).
// The series live in a prom-client Registry of their own (never the global one, so tests and daemons
// share nothing), next to prom-client's default process metrics; sglang's relabelled families are
// appended at scrape time.

/** Every miner phase gets a series (0 or 1), so a state never seen yet still graphs as 0. */
export const MINER_STATES: readonly MinerPhase[] = ['stopped', 'starting-serve', 'connecting', 'waiting-for-probe', 'probing', 'active', 'pulled', 'denied', 'reconnecting', 'withdrawn', 'failed'];
export const SERVE_STATES: readonly EngineState[] = ['stopped', 'starting', 'ready', 'degraded', 'crashed', 'restarting', 'stopping', 'failed'];

export interface MinerMetricsInput {
  state: string;
  legsConnected: number;
  legsAdmitted: number;
  /** Requests being served right now. */
  inFlight?: number;
  /** Workers (engines) whose legs are withdrawn because their serve failed the health gate, with the cause. */
  withdrawn?: ReadonlyArray<{ worker: string; cause: string }>;
}

export interface RequestMetricsInput {
  /** The miner's RequestOutcome: `ok`, `error`, `cancelled` (cancelled leaves the acceptance denominator). */
  outcome: string;
  ttftSeconds?: number;
  tpotSeconds?: number;
  promptTokens?: number;
  completionTokens?: number;
  cachedTokens?: number;
}

export interface ServeEngineMetricsInput {
  engine: string;
  state: string;
  /** Readiness probe passes (not merely "process alive"). */
  up: boolean;
  restarts: number;
}

export interface GpuMetricsInput {
  index: number;
  uuid: string;
  utilizationRatio?: number;
  memoryUsedBytes?: number;
  memoryTotalBytes?: number;
  temperatureCelsius?: number;
  powerWatts?: number;
  powerLimitWatts?: number;
}

export interface ValidatorMetricsInput {
  lastSubmitBlock?: number;
  currentBlock?: number;
}

/** Commit-reveal state from ValidatorSnapshot.commitReveal; null fields clear their series. */
export interface CommitRevealMetricsInput {
  enabled: boolean | null;
  pending: number;
  nextRevealBlock: number | null;
  nextRevealRound: number | null;
  lastRevealLanded: boolean | null;
}

/** Every name this module serves, with its type: the docs table and the dashboard test read it. */
export const ENGY_METRIC_NAMES: Readonly<Record<string, 'counter' | 'gauge' | 'histogram'>> = {
  engy_miner_state: 'gauge',
  engy_miner_legs_connected: 'gauge',
  engy_miner_legs_admitted: 'gauge',
  engy_miner_requests_in_flight: 'gauge',
  engy_miner_withdrawn: 'gauge',
  engy_miner_requests_total: 'counter',
  engy_miner_ttft_seconds: 'histogram',
  engy_miner_tpot_seconds: 'histogram',
  engy_miner_tokens_total: 'counter',
  engy_proof_build_seconds: 'histogram',
  engy_event_loop_lag_seconds: 'gauge',
  engy_serve_engine_up: 'gauge',
  engy_serve_restarts_total: 'counter',
  engy_serve_state: 'gauge',
  engy_gpu_utilization_ratio: 'gauge',
  engy_gpu_memory_used_bytes: 'gauge',
  engy_gpu_memory_total_bytes: 'gauge',
  engy_gpu_temperature_celsius: 'gauge',
  engy_gpu_power_watts: 'gauge',
  engy_gpu_power_limit_watts: 'gauge',
  engy_validator_last_submit_block: 'gauge',
  engy_validator_blocks_since_update: 'gauge',
  engy_validator_submissions_total: 'counter',
  engy_validator_commit_reveal: 'gauge',
  engy_validator_pending_commits: 'gauge',
  engy_validator_next_reveal_block: 'gauge',
  engy_validator_next_reveal_round: 'gauge',
  engy_validator_last_reveal_landed: 'gauge',
};

// TPOT lives in tens of milliseconds; TTFT from a second to minutes (the gate is ~100 s at p99).
const TTFT_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 100, 150, 200, 300, 600];
const TPOT_BUCKETS = [0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1];
const PROOF_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A label-less gauge that shows no sample until set and after `clear` (prom-client's reset would print 0). */
function clearable(g: Gauge): Gauge {
  g.remove({});
  return g;
}

export class EngyMetrics {
  readonly registry = new Registry();
  private readonly minerState: Gauge;
  private readonly legsConnected: Gauge;
  private readonly legsAdmitted: Gauge;
  private readonly inFlight: Gauge;
  private readonly withdrawn: Gauge;
  private readonly requests: Counter;
  private readonly ttft: Histogram;
  private readonly tpot: Histogram;
  private readonly tokens: Counter;
  private readonly proofBuild: Histogram;
  private readonly loopLag: Gauge;
  private readonly serveUp: Gauge;
  private readonly serveRestarts: Counter;
  /** The totals mirrored into serveRestarts, per engine: prom-client counters only add. */
  private readonly restartTotals = new Map<string, number>();
  private readonly serveState: Gauge;
  private readonly gpu: Record<'util' | 'memUsed' | 'memTotal' | 'temp' | 'power' | 'powerLimit', Gauge>;
  private readonly lastSubmitBlock: Gauge;
  private readonly blocksSinceUpdate: Gauge;
  private readonly submissions: Counter;
  private readonly cr: Record<'enabled' | 'pending' | 'revealBlock' | 'revealRound' | 'landed', Gauge>;
  private sglang: EngineScrape[] = [];
  private sglangErrors: string[] = [];

  constructor() {
    const registers = [this.registry];
    const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers });
    const counter = (name: string, help: string, labelNames: string[] = []) => new Counter({ name, help, labelNames, registers });
    const histogram = (name: string, help: string, buckets: number[]) => new Histogram({ name, help, buckets, registers });
    this.minerState = gauge('engy_miner_state', 'Miner state: 1 for the current state, 0 for the others.', ['state']);
    this.legsConnected = clearable(gauge('engy_miner_legs_connected', 'Gateway legs with an open socket.'));
    this.legsAdmitted = clearable(gauge('engy_miner_legs_admitted', 'Gateway legs the gateway admitted (ADMITTED received).'));
    this.inFlight = clearable(gauge('engy_miner_requests_in_flight', 'Gateway requests being served right now.'));
    this.withdrawn = gauge('engy_miner_withdrawn', 'withdrawn: serve unhealthy. 1 per worker (engine) whose legs are withdrawn because its serve failed the health gate; the cause label says why.', [
      'worker',
      'reason',
      'cause',
    ]);
    this.requests = counter('engy_miner_requests_total', 'Gateway requests finished, by outcome.', ['outcome']);
    this.ttft = histogram('engy_miner_ttft_seconds', 'Time to first token as the gateway sees it (miner overhead included).', TTFT_BUCKETS);
    this.tpot = histogram('engy_miner_tpot_seconds', 'Time per output token after the first.', TPOT_BUCKETS);
    this.tokens = counter('engy_miner_tokens_total', 'Tokens served, by kind (prompt, completion, cached).', ['kind']);
    this.proofBuild = histogram('engy_proof_build_seconds', "Time to build one response's TOPLOC proof.", PROOF_BUCKETS);
    this.loopLag = clearable(gauge('engy_event_loop_lag_seconds', 'Recent event-loop delay of the engine process (high = parsing stall, not network).'));
    this.serveUp = gauge('engy_serve_engine_up', '1 when the engine answers its readiness probe.', ['engine']);
    this.serveRestarts = counter('engy_serve_restarts_total', 'Engine restarts by the supervisor since the panel started.', ['engine']);
    this.serveState = gauge('engy_serve_state', 'Engine supervisor state: 1 for the current state.', ['engine', 'state']);
    const gl = ['gpu', 'uuid'];
    this.gpu = {
      util: gauge('engy_gpu_utilization_ratio', 'GPU utilisation, 0..1.', gl),
      memUsed: gauge('engy_gpu_memory_used_bytes', 'GPU memory in use.', gl),
      memTotal: gauge('engy_gpu_memory_total_bytes', 'GPU memory in total.', gl),
      temp: gauge('engy_gpu_temperature_celsius', 'GPU core temperature.', gl),
      power: gauge('engy_gpu_power_watts', 'GPU power draw.', gl),
      powerLimit: gauge('engy_gpu_power_limit_watts', 'GPU enforced power limit.', gl),
    };
    this.lastSubmitBlock = clearable(gauge('engy_validator_last_submit_block', 'Block of the last set_weights the chain accepted.'));
    this.blocksSinceUpdate = clearable(gauge('engy_validator_blocks_since_update', 'Blocks since the last accepted set_weights (alert well before activity_cutoff ~5000).'));
    this.submissions = counter('engy_validator_submissions_total', 'set_weights attempts, by outcome.', ['outcome']);
    this.cr = {
      enabled: clearable(gauge('engy_validator_commit_reveal', '1 when the chain has commit-reveal on (weights go as timelocked commits), 0 for plain set_weights.')),
      pending: clearable(gauge('engy_validator_pending_commits', 'Commits of this validator waiting for their reveal.')),
      revealBlock: clearable(gauge('engy_validator_next_reveal_block', 'Block by which the oldest pending commit should be revealed.')),
      revealRound: clearable(gauge('engy_validator_next_reveal_round', 'drand round the oldest pending commit is locked to.')),
      landed: clearable(gauge('engy_validator_last_reveal_landed', '1 when the weights on chain equalled the last revealed commit, 0 when the reveal failed.')),
    };
    // process_* and nodejs_* (CPU, memory, handles, GC, prom-client's own loop-lag view), read at scrape time.
    collectDefaultMetrics({ register: this.registry });
  }

  observeMiner(m: MinerMetricsInput): void {
    for (const s of new Set<string>([...MINER_STATES, m.state])) this.minerState.set({ state: s }, s === m.state ? 1 : 0);
    this.legsConnected.set(m.legsConnected);
    this.legsAdmitted.set(m.legsAdmitted);
    if (m.inFlight !== undefined) this.inFlight.set(m.inFlight);
    if (m.withdrawn !== undefined) {
      this.withdrawn.reset();
      for (const w of m.withdrawn) this.withdrawn.set({ worker: w.worker, reason: 'serve unhealthy', cause: w.cause.slice(0, 120) }, 1);
    }
  }

  recordRequest(r: RequestMetricsInput): void {
    this.requests.inc({ outcome: r.outcome });
    observe(this.ttft, r.ttftSeconds);
    observe(this.tpot, r.tpotSeconds);
    if (r.promptTokens) this.tokens.inc({ kind: 'prompt' }, r.promptTokens);
    if (r.completionTokens) this.tokens.inc({ kind: 'completion' }, r.completionTokens);
    if (r.cachedTokens) this.tokens.inc({ kind: 'cached' }, r.cachedTokens);
  }

  recordProofBuild(seconds: number): void {
    observe(this.proofBuild, seconds);
  }

  setEventLoopLag(seconds: number): void {
    this.loopLag.set(seconds);
  }

  /** The whole serve plan at once: engines no longer planned disappear from the scrape. */
  observeServe(engines: readonly ServeEngineMetricsInput[]): void {
    this.serveUp.reset();
    this.serveState.reset();
    for (const e of engines) {
      this.serveUp.set({ engine: e.engine }, e.up ? 1 : 0);
      this.setRestarts(e.engine, e.restarts);
      for (const s of new Set<string>([...SERVE_STATES, e.state])) this.serveState.set({ engine: e.engine, state: s }, s === e.state ? 1 : 0);
    }
  }

  /** Mirrors a cumulative count the supervisor keeps; a drop (a new supervisor) reads as a counter reset. */
  private setRestarts(engine: string, total: number): void {
    if (!(total >= 0)) return;
    const labels = { engine };
    const was = this.restartTotals.get(engine);
    this.restartTotals.set(engine, total);
    if (was === undefined || total < was) {
      this.serveRestarts.remove(labels);
      this.serveRestarts.inc(labels, total);
    } else if (total > was) this.serveRestarts.inc(labels, total - was);
  }

  /** Latest /metrics body per engine; pass [] when the serve stops. */
  setSglangScrapes(scrapes: readonly EngineScrape[]): void {
    this.sglang = [...scrapes];
  }

  /** Bodies the last render could not parse (shown by doctor). */
  get sglangParseErrors(): readonly string[] {
    return this.sglangErrors;
  }

  observeGpus(gpus: readonly GpuMetricsInput[]): void {
    for (const g of Object.values(this.gpu)) g.reset();
    for (const g of gpus) {
      const l = { gpu: String(g.index), uuid: g.uuid };
      if (g.utilizationRatio !== undefined) this.gpu.util.set(l, g.utilizationRatio);
      if (g.memoryUsedBytes !== undefined) this.gpu.memUsed.set(l, g.memoryUsedBytes);
      if (g.memoryTotalBytes !== undefined) this.gpu.memTotal.set(l, g.memoryTotalBytes);
      if (g.temperatureCelsius !== undefined) this.gpu.temp.set(l, g.temperatureCelsius);
      if (g.powerWatts !== undefined) this.gpu.power.set(l, g.powerWatts);
      if (g.powerLimitWatts !== undefined) this.gpu.powerLimit.set(l, g.powerLimitWatts);
    }
  }

  observeValidator(v: ValidatorMetricsInput): void {
    if (v.lastSubmitBlock !== undefined) this.lastSubmitBlock.set(v.lastSubmitBlock);
    if (v.lastSubmitBlock !== undefined && v.currentBlock !== undefined) {
      this.blocksSinceUpdate.set(Math.max(0, v.currentBlock - v.lastSubmitBlock));
    }
  }

  observeCommitReveal(v: CommitRevealMetricsInput): void {
    const put = (g: Gauge, x: number | null) => (x === null ? g.remove({}) : g.set(x));
    put(this.cr.enabled, v.enabled === null ? null : v.enabled ? 1 : 0);
    this.cr.pending.set(v.pending);
    put(this.cr.revealBlock, v.nextRevealBlock);
    put(this.cr.revealRound, v.nextRevealRound);
    put(this.cr.landed, v.lastRevealLanded === null ? null : v.lastRevealLanded ? 1 : 0);
  }

  recordSubmission(outcome: string): void {
    this.submissions.inc({ outcome });
  }

  /**
   * The body for GET /metrics (Content-Type: text/plain; version=0.0.4; charset=utf-8): prom-client's
   * families, then sglang's relabelled ones (a name already served is skipped: Prometheus refuses a
   * family declared twice). Blank separator lines are dropped so every line is HELP, TYPE or a sample.
   */
  async renderMetrics(): Promise<string> {
    // prom-client spells NaN "Nan" (a default metric before its first sample): the format's spelling is "NaN".
    const own = (await this.registry.metrics()).replace(/\n{2,}/g, '\n').replace(/ Nan$/gm, ' NaN');
    const { families, errors } = relabelSglang(this.sglang);
    this.sglangErrors = errors;
    const extra = renderFamilies(families.filter((f) => this.registry.getSingleMetric(f.name) === undefined));
    return own.endsWith('\n') || own === '' ? own + extra : `${own}\n${extra}`;
  }
}

/** prom-client refuses NaN; a missing or NaN timing is simply not observed (it would poison _sum). */
function observe(h: Histogram, seconds: number | undefined): void {
  if (seconds !== undefined && !Number.isNaN(seconds)) h.observe(seconds);
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
