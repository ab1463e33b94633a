// The miner engine for one serve set: gateway legs + request pipeline + records, stats, gate
// forecast, loop health and self-audit, published as an immutable snapshot with a rising version.
import { hostname } from 'node:os';
import type { MinerSnapshot, ModelTargets } from '../../../shared/miner.ts';
import { Backoff, type BackoffOptions } from '../lib/backoff.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import type { Disposable } from '../lib/disposable.ts';
import { Emitter } from '../lib/emitter.ts';
import type { Logger, SecretRedactor } from '../lib/logger.ts';
import type { Database } from '../store/database.ts';
import type { HelloHw } from './frames.ts';
import { GatewayClient } from './gateway-client.ts';
import { checkpointModelRoot, defaultWorkerName, newWorkerId } from './identity.ts';
import type { LegTimings } from './leg-connection.ts';
import { legPlanWarning, type FetchLike } from './leg-plan.ts';
import { LoopLagProbe } from './loop-lag.ts';
import { derivePhase, PhaseHistory } from './miner-state.ts';
import { PromptBuilder } from './prompt-builder.ts';
import type { ProofPort } from './proof-port.ts';
import { RequestPipeline } from './request-pipeline.ts';
import { RequestRecords } from './request-records.ts';
import { CHEAT_SCORE, cheatScoreOf, SelfAuditor } from './self-audit.ts';
import { loadModelCatalog } from '../lib/model-catalog.ts';
import { STATS_WINDOW_MS } from '../../../shared/miner.ts';
import { createServeAgents, destroyServeAgents, type ServeAgents } from './serve-http.ts';
import { ServePool } from './serve-pool.ts';
import { ServeWatch, type HealthFetch } from './serve-health.ts';
import { serveUnhealthyError } from './response-errors.ts';
import type { KvLoad, ServeHealthView } from '../../../shared/miner.ts';
import { computeStats, DEFAULT_TARGETS, forecastGates } from './stats.ts';
import type { StartStagger } from './start-stagger.ts';
import { gatewayWorkersFromEnv, WorkerLoad } from './worker-load.ts';

export interface MinerServiceOptions {
  gatewayUrl: string;
  serveUrls: string[];
  /** Serves the self-audit may re-run a request on (default `serveUrls`): another engine's has no prefix cache of it. */
  auditServeUrls?: string[];
  checkpointDir: string;
  model: string;
  maxInflight: number;
  workerName?: string;
  /** Kept across restarts by the caller (worker-id-store.ts); fresh per process when absent. */
  workerId?: string;
  /** From the keys service; registered with the redactor, never logged or put in a snapshot. */
  minerKey: () => string;
  redactor?: SecretRedactor;
  hw: () => Promise<HelloHw>;
  versions: Record<string, string>;
  proof: ProofPort;
  log: Logger;
  db?: Database | null;
  fetch?: FetchLike;
  clock?: Clock;
  timings?: Partial<LegTimings>;
  backoff?: BackoffOptions;
  limits?: { maxInputTokens?: number; maxOutputTokens?: number; maxRequestS?: number };
  targets?: ModelTargets;
  /** Several engines on one box start about 15 s apart. */
  stagger?: StartStagger;
  /** One line per leg event and request outcome (the daemon's stdout). */
  onEvent?: (line: string) => void;
  engine?: string;
  probeWindowMs?: number;
  probeMinRequests?: number;
  audit?: { sampleRate: number; minIntervalMs: number; maxRows?: number };
  chunkTokens?: number;
  flushMs?: number;
  statsWindowMs?: number;
  /** Read for ENGY_GW_WORKERS (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The serve health gate's probes (default: global fetch; tests inject a double). */
  healthFetch?: HealthFetch;
  /** Health probe cadence (default 5 s, on `clock`). */
  healthIntervalMs?: number;
}

export class MinerService implements Disposable {
  private readonly o: MinerServiceOptions;
  private readonly clock: Clock;
  private readonly changes = new Emitter<MinerSnapshot>();
  readonly onDidChange = this.changes.event;
  /** Fresh per process start, kept across re-dials, serve restarts and stop/start of this engine. */
  readonly workerId: string;
  readonly workerName: string;
  private readonly records: RequestRecords;
  private readonly history = new PhaseHistory();
  private readonly lag: LoopLagProbe;
  private client: GatewayClient | null = null;
  private pipeline: RequestPipeline | null = null;
  private auditor: SelfAuditor | null = null;
  private agents: ServeAgents | null = null;
  private modelRoot: string | null = null;
  /** Holds the tokenizer's thread while mining: closed on stop. */
  private prompt: PromptBuilder | null = null;
  private stopped = true;
  private startingServe = false;
  private failure: string | null = null;
  private wasComplete = false;
  private firstServeAt: number | null = null;
  private version = 0;
  private retryTimer: unknown = null;
  private readonly metaBackoff = new Backoff({ initialMs: 2000, maxMs: 60_000, jitter: 0.3 });
  private pendingEmit = false;
  private readonly load: WorkerLoad;
  private watches: ServeWatch[] = [];
  private pool: ServePool | null = null;

  constructor(o: MinerServiceOptions) {
    this.o = o;
    this.clock = o.clock ?? systemClock;
    this.workerName = o.workerName ?? defaultWorkerName(hostname(), o.model, o.serveUrls);
    this.workerId = o.workerId ?? newWorkerId();
    this.records = new RequestRecords(o.db ?? null);
    this.load = new WorkerLoad(this.clock);
    this.lag = new LoopLagProbe(() => this.pipeline?.inflight ?? 0);
    this.history.update(this.clock.now(), 'stopped', 'stopped');
  }

  /** The composition root says the serve is (re)starting: shown until `start()`. */
  markStartingServe(on: boolean): void {
    this.startingServe = on;
    this.changed();
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    const o = this.o;
    this.stopped = false;
    this.failure = null;
    this.startingServe = false;
    o.redactor?.register(o.minerKey());
    this.changed();
    this.lag.start();
    this.agents = createServeAgents();
    const [prompt, modelRoot, hw] = await Promise.all([PromptBuilder.load(o.checkpointDir), checkpointModelRoot(o.checkpointDir), o.hw()]);
    this.prompt?.close();
    this.prompt = prompt;
    this.modelRoot = modelRoot;
    const fastOff = prompt.fastEncoderOff;
    o.log.info(
      fastOff === null
        ? "prompts: short ASCII prompts leave with the fast encoder's ids, confirmed by the tokenizer before any text or proof"
        : `prompts: every prompt waits for the tokenizer (the fast encoder is off: ${fastOff})`,
    );
    const agents = this.agents;
    this.auditor = o.audit
      ? new SelfAuditor({
          proof: o.proof,
          agent: agents.generate,
          log: o.log,
          sampleRate: o.audit.sampleRate,
          minIntervalMs: o.audit.minIntervalMs,
          maxRows: o.audit.maxRows ?? 16_384,
          serveUrls: o.auditServeUrls ?? o.serveUrls,
          threshold: this.cheatThreshold(),
          idle: () => (this.pipeline?.inflight ?? 0) === 0,
          onChange: () => this.changed(),
          onResult: (rid, score, chunks, error) => this.records.addAudit(this.clock.now(), rid, score, chunks, error),
        })
      : null;
    const pool = new ServePool(o.serveUrls);
    this.pool = pool;
    this.pipeline = new RequestPipeline({
      prompt,
      proof: o.proof,
      serves: pool,
      agents,
      modelRoot,
      engine: o.engine ?? 'engine-0',
      timeoutMs: (o.limits?.maxRequestS ?? 1800) * 1000,
      log: o.log,
      chunkTokens: o.chunkTokens,
      flushMs: o.flushMs,
      now: () => this.clock.now(),
      onRecord: (rec) => {
        this.records.add(rec, this.clock.now());
        this.event(
          `request ${rec.corrId} leg=${rec.leg} ${rec.outcome}${rec.cause ? ` (${rec.cause})` : ''} prompt=${rec.promptTokens} completion=${rec.completionTokens} e2e=${Math.round(rec.e2eMs)}ms${rec.ttftMs !== null ? ` ttft=${Math.round(rec.ttftMs)}ms` : ''}`,
        );
        this.changed();
      },
      onServed: (s) => this.auditor?.offer(s),
      onInflightChange: () => {
        this.auditor?.poke();
        this.changed();
      },
      load: this.load,
      maxInflight: () => this.client?.plan?.total ?? Math.max(1, Math.floor(o.maxInflight)),
      onServeFailure: (url) => this.watches.find((w) => w.url === url)?.poke(),
    });
    const pipeline = this.pipeline;
    const workers = gatewayWorkersFromEnv(o.env ?? process.env);
    if (workers.error) o.log.warn(workers.error);
    this.client = new GatewayClient({
      gatewayUrl: o.gatewayUrl,
      identity: { model: o.model, modelRoot, workerName: this.workerName, workerId: this.workerId, hw, versions: o.versions, minerKey: o.minerKey },
      limits: {
        maxInflightTotal: o.maxInflight,
        maxInputTokens: o.limits?.maxInputTokens ?? 229_376,
        maxOutputTokens: o.limits?.maxOutputTokens ?? 32_768,
        maxRequestS: o.limits?.maxRequestS ?? 1800,
      },
      handlers: {
        onServe: (conn, frame) => {
          // A frame that was already on the wire to a leg being withdrawn: never started on the sick serve.
          const sick = this.client?.withdrawn ?? null;
          if (sick !== null) return pipeline.refuse(conn, frame, serveUnhealthyError(sick));
          this.firstServeAt ??= this.clock.now();
          void pipeline.serve(conn, frame);
        },
        onCancel: (conn, corrId) => {
          const n = pipeline.cancel(conn.legIndex, corrId);
          this.event(`gw${conn.legIndex} CANCEL ${corrId} (aborting ${n} serve request(s))`);
        },
        onChange: () => this.changed(),
        onEvent: (_i, text) => this.event(text),
      },
      fetch: o.fetch ?? ((url, init) => fetch(url, init)),
      clock: this.clock,
      log: o.log,
      timings: o.timings,
      backoff: o.backoff,
      load: this.load,
      workers: workers.workers,
    });
    this.load.listen(() => this.client?.loadChanged());
    this.watches = o.serveUrls.map(
      (url) =>
        new ServeWatch({
          url,
          clock: this.clock,
          log: o.log,
          lastActivity: () => pool.lastActivity(url),
          ...(o.healthFetch ? { fetch: o.healthFetch } : {}),
          ...(o.healthIntervalMs ? { intervalMs: o.healthIntervalMs } : {}),
          onVerdict: () => this.healthChanged(),
        }),
    );
    this.load.kvSource = () => sumKv(this.watches.map((w) => w.kv));
    if (o.stagger) await o.stagger.turn();
    if (this.stopped) return;
    for (const w of this.watches) w.start();
    await this.connect();
  }

  /** A serve's health verdict turned: the engine's legs leave only when every one of its serves is down. */
  private healthChanged(): void {
    for (const w of this.watches) this.pool?.setDown(w.url, w.verdict.withdrawn);
    const down = this.watches.filter((w) => w.verdict.withdrawn);
    const client = this.client;
    if (client) {
      if (down.length > 0 && down.length === this.watches.length) {
        const cause = down[0]!.verdict.cause ?? 'the serve failed its health check';
        if (client.withdrawn === null) client.withdraw(cause);
      } else if (client.withdrawn !== null) client.restore();
    }
    this.changed();
  }

  private healthView(): ServeHealthView {
    const down = this.watches.filter((w) => w.verdict.withdrawn);
    const all = down.length > 0 && down.length === this.watches.length;
    return { withdrawn: all, cause: all ? (down[0]!.verdict.cause ?? null) : null, since: all ? (down[0]!.verdict.since ?? null) : null, kv: sumKv(this.watches.map((w) => w.kv)) };
  }

  /** Reads `/meta` and opens the legs; when `/meta` is unreadable, says so and retries. */
  private async connect(): Promise<void> {
    if (this.stopped || !this.client) return;
    try {
      await this.client.start();
      this.failure = null;
      this.metaBackoff.reset();
      const warning = this.client.plan ? legPlanWarning(this.client.plan) : null;
      if (warning) this.o.log.warn(warning);
    } catch (e) {
      const wait = this.metaBackoff.next();
      this.failure = `${(e as Error).message}; retrying in ${Math.round(wait / 1000)} s`;
      this.o.log.error(this.failure);
      this.retryTimer = this.clock.setTimeout(() => void this.connect(), wait);
    }
    this.changed();
  }

  async stop(): Promise<void> {
    if (this.startingServe) {
      this.startingServe = false;
      this.changed();
    }
    if (this.stopped) return;
    this.stopped = true;
    if (this.retryTimer !== null) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    for (const w of this.watches) w.stop();
    this.pipeline?.cancelAll();
    this.client?.stop();
    this.lag.stop();
    // Let the aborts go out on their own pool before the agents close.
    await new Promise((r) => setTimeout(r, 50));
    if (this.agents) destroyServeAgents(this.agents);
    this.agents = null;
    this.prompt?.close();
    this.prompt = null;
    this.changed();
  }

  async dispose(): Promise<void> {
    await this.stop();
    this.changes.clear();
  }

  snapshot(): MinerSnapshot {
    const now = this.clock.now();
    const client = this.client;
    const plan = client?.plan ?? null;
    const legs = client?.snapshot() ?? [];
    const live = client?.liveLegs ?? 0;
    const admitted = client?.admittedLegs ?? 0;
    const all = this.records.all();
    const inflight = this.pipeline?.inflight ?? 0;
    const stats = computeStats(all, now, this.o.statsWindowMs ?? STATS_WINDOW_MS, inflight, this.pipeline?.inflightPeak ?? 0);
    const targets = this.o.targets ?? DEFAULT_TARGETS;
    const audit = this.auditor?.summary() ?? { audited: 0, skipped: 0, failures: 0, lastScore: null, meanScore: null, maxScore: null, threshold: this.cheatThreshold(), warning: null };
    const planned = plan?.indices.length ?? 0;
    if (planned > 0 && live === planned && admitted === planned) this.wasComplete = true;
    const probe = {
      windowMs: this.o.probeWindowMs ?? 600_000,
      minRequests: this.o.probeMinRequests ?? 20,
      firstServeAt: this.firstServeAt,
      servedOk: all.filter((r) => r.outcome === 'ok').length,
      legsAdmitted: admitted,
    };
    const { phase, detail } = derivePhase(
      {
        stopped: this.stopped,
        startingServe: this.startingServe,
        failure: this.failure,
        withdrawn: client?.withdrawn ?? null,
        planned,
        live,
        admitted,
        denyReasons: client?.denyReasons ?? [],
        wasComplete: this.wasComplete,
        servedOk: probe.servedOk,
        firstServeAt: this.firstServeAt,
        now,
        probeWindowMs: probe.windowMs,
        probeMinRequests: probe.minRequests,
      },
      this.history.everActive(),
    );
    this.history.update(now, phase, detail);
    const current = this.history.current!;
    return {
      version: this.version,
      phase,
      detail,
      since: current.at,
      history: this.history.list(),
      gatewayUrl: this.o.gatewayUrl,
      gatewayWorkers: plan?.workers ?? null,
      legsPlanned: planned,
      legsLive: live,
      legsWarning: plan ? legPlanWarning(plan) : null,
      legs,
      model: this.o.model,
      modelRoot: this.modelRoot,
      workerName: this.workerName,
      workerId: this.workerId,
      capacity: plan
        ? {
            maxInflightTotal: plan.total,
            perLeg: plan.perLeg,
            legs: planned,
            maxInputTokens: this.o.limits?.maxInputTokens ?? 229_376,
            maxOutputTokens: this.o.limits?.maxOutputTokens ?? 32_768,
            maxRequestS: this.o.limits?.maxRequestS ?? 1800,
          }
        : null,
      stats,
      targets,
      forecast: forecastGates(stats, targets, audit.warning),
      loop: this.lag.health(),
      audit,
      recent: this.records.recent(50),
      serveHealth: this.healthView(),
      probe,
    };
  }

  private cutCache: number | null = null;
  /** The cheat cut from this model's spec in the catalog (toploc v / k); the proof constants if the catalog lacks it. */
  private cheatThreshold(): number {
    if (this.cutCache !== null) return this.cutCache;
    try {
      const spec = loadModelCatalog().models.find((m) => m.id === this.o.model);
      this.cutCache = spec && spec.openToMiners ? cheatScoreOf(spec) : CHEAT_SCORE;
    } catch {
      this.cutCache = CHEAT_SCORE;
    }
    return this.cutCache;
  }

  /** Audit the next served request whatever the sampling (tests, "audit now"). */
  get selfAuditor(): SelfAuditor | null {
    return this.auditor;
  }

  private event(line: string): void {
    this.o.log.info(line);
    this.o.onEvent?.(line);
  }

  /**
   * Snapshots are coalesced: a burst of leg events or request outcomes publishes once per
   * ~100 ms, so heavy traffic does not recompute the statistics per frame.
   */
  private changed(): void {
    if (this.pendingEmit) return;
    this.pendingEmit = true;
    const t = setTimeout(() => {
      this.pendingEmit = false;
      this.version += 1;
      this.changes.fire(this.snapshot());
    }, 100);
    t.unref();
  }
}

/** KV reads of several serves as one (the gateway sees one worker). */
function sumKv(all: readonly (KvLoad | null)[]): KvLoad | null {
  const got = all.filter((k): k is KvLoad => k !== null);
  if (got.length === 0) return null;
  const kv: KvLoad = { used: 0, reqs: 0, waiting: 0, pending: 0, ranks: 0 };
  let limit = 0;
  for (const k of got) {
    kv.used += k.used;
    kv.reqs += k.reqs;
    kv.waiting += k.waiting;
    kv.pending += k.pending;
    kv.ranks += k.ranks;
    limit += k.limit ?? 0;
  }
  if (limit > 0 && got.every((k) => k.limit !== undefined)) {
    kv.limit = limit;
    kv.frac = Math.round((kv.used / limit) * 10_000) / 10_000;
  }
  return kv;
}
