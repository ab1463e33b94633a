// The miner's side of the pool protocol: reads `/meta`, plans the legs, opens one leg per
// planned worker, and hands serve/cancel frames to the request pipeline.
import type { LegSnapshot } from '../../../shared/miner.ts';
import type { BackoffOptions } from '../lib/backoff.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { helloFrame, type Capacity, type HelloFrame, type HelloHw } from './frames.ts';
import { GatewayLeg, type LegHandlers } from './gateway-leg.ts';
import { DEFAULT_LEG_TIMINGS, type LegTimings } from './leg-connection.ts';
import type { LoadView } from './worker-load.ts';
import { planLegs, readGatewayWorkers, workerUrl, type FetchLike, type LegPlan } from './leg-plan.ts';

export interface GatewayIdentity {
  model: string;
  modelRoot: string;
  workerName: string;
  workerId: string;
  hw: HelloHw;
  versions: Record<string, string>;
  /** Injected from the keys service and read at each hello; never stored or logged here. */
  minerKey: () => string;
}

export interface GatewayLimits {
  maxInflightTotal: number;
  maxInputTokens: number;
  maxOutputTokens: number;
  maxRequestS: number;
}

export interface GatewayClientOptions {
  gatewayUrl: string;
  identity: GatewayIdentity;
  limits: GatewayLimits;
  handlers: LegHandlers;
  fetch: FetchLike;
  clock: Clock;
  log: Logger;
  timings?: Partial<LegTimings>;
  backoff?: BackoffOptions;
  random?: () => number;
  /** The process-wide load every leg's heartbeat reports. */
  load?: LoadView;
  /** ENGY_GW_WORKERS: the worker count given by the operator; `/meta` is not read. */
  workers?: number | null;
}

/** How often `/meta` is read again, so a gateway scale event adds or drops legs without a restart. */
export const META_RECHECK_MS = 5_000;
/** Load pushes are coalesced over this window: a burst of starts sends at most two frames per socket. */
export const LOAD_PUSH_MS = 100;

export class GatewayClient {
  /** Legs by gateway worker index. */
  private readonly legs = new Map<number, GatewayLeg>();
  private planned: LegPlan | null = null;
  private started = false;
  private withdrawnCause: string | null = null;
  private metaTimer: unknown = null;
  private pushTimer: unknown = null;
  private pushPending = false;
  private readonly timings: LegTimings;
  private readonly backoff: BackoffOptions;

  private readonly opts: GatewayClientOptions;

  constructor(opts: GatewayClientOptions) {
    this.opts = opts;
    // An old socket drains as long as a request on it may still run: the deadline we declare.
    this.timings = { ...DEFAULT_LEG_TIMINGS, drainMaxMs: opts.limits.maxRequestS * 1000, ...opts.timings };
    this.backoff = opts.backoff ?? { initialMs: 500, maxMs: 30_000, jitter: 0.3 };
  }

  get plan(): LegPlan | null {
    return this.planned;
  }

  /** Throws (with a sentence for the user) when `/meta` cannot be read. */
  async start(): Promise<LegPlan> {
    const { opts } = this;
    const workers = opts.workers ?? (await readGatewayWorkers(opts.gatewayUrl, opts.fetch));
    const plan = planLegs(workers, opts.limits.maxInflightTotal, opts.random);
    this.planned = plan;
    this.started = true;
    opts.handlers.onEvent(
      -1,
      `dialing ${plan.indices.length} of ${workers} worker(s) of ${opts.gatewayUrl} as ${opts.identity.model} root=${opts.identity.modelRoot.slice(0, 12)} leg_inflight=${plan.perLeg} total_inflight=${plan.total} legs=[${plan.indices.join(',')}]`,
    );
    for (const index of plan.indices) this.openLeg(index, workers, plan.perLeg);
    // ENGY_GW_WORKERS fixes the count; otherwise follow the gateway's scale events.
    if (opts.workers == null) this.scheduleMeta();
    return plan;
  }

  stop(): void {
    this.started = false;
    if (this.metaTimer !== null) this.opts.clock.clearTimeout(this.metaTimer);
    if (this.pushTimer !== null) this.opts.clock.clearTimeout(this.pushTimer);
    this.metaTimer = null;
    this.pushTimer = null;
    for (const leg of this.legs.values()) leg.stop();
  }

  /** The engine's serve is unhealthy: every leg drains and stays down until `restore()`. */
  withdraw(cause: string): void {
    this.withdrawnCause = cause;
    for (const leg of this.legs.values()) leg.withdraw(cause);
  }

  restore(): void {
    this.withdrawnCause = null;
    for (const leg of this.legs.values()) leg.restore();
  }

  get withdrawn(): string | null {
    return this.withdrawnCause;
  }

  /**
   * The process's in-flight count changed: push a heartbeat on every socket so the gateway admits
   * against a fresh count. The first change goes at once; later ones within LOAD_PUSH_MS are
   * folded into one trailing push.
   */
  loadChanged(): void {
    if (!this.started) return;
    if (this.pushTimer !== null) {
      this.pushPending = true;
      return;
    }
    this.pushLoad();
    this.pushTimer = this.opts.clock.setTimeout(() => this.pushWindowEnd(), LOAD_PUSH_MS);
  }

  private pushWindowEnd(): void {
    this.pushTimer = null;
    if (!this.pushPending || !this.started) return;
    this.pushPending = false;
    this.pushLoad();
    this.pushTimer = this.opts.clock.setTimeout(() => this.pushWindowEnd(), LOAD_PUSH_MS);
  }

  private pushLoad(): void {
    for (const leg of this.legs.values()) leg.pushLoad();
  }

  snapshot(): LegSnapshot[] {
    return [...this.legs.values()].sort((a, b) => a.index - b.index).map((l) => l.snapshot());
  }

  get liveLegs(): number {
    return [...this.legs.values()].filter((l) => l.live).length;
  }

  get admittedLegs(): number {
    return [...this.legs.values()].filter((l) => l.isAdmitted).length;
  }

  get denyReasons(): string[] {
    return [...this.legs.values()].map((l) => l.denied).filter((r): r is string => r !== null);
  }

  get inflight(): number {
    return [...this.legs.values()].reduce((n, l) => n + l.inflight, 0);
  }

  private openLeg(index: number, workers: number, perLeg: number): void {
    const { opts } = this;
    const capacity: Capacity = {
      max_inflight: perLeg,
      max_inflight_total: Math.max(1, Math.floor(opts.limits.maxInflightTotal)),
      max_input_tokens: opts.limits.maxInputTokens,
      max_output_tokens: opts.limits.maxOutputTokens,
      max_request_s: opts.limits.maxRequestS,
    };
    const hello = (): HelloFrame => {
      const id = opts.identity;
      return helloFrame({
        miner_key: id.minerKey(),
        model: id.model,
        model_root: id.modelRoot,
        hw: id.hw,
        versions: id.versions,
        capacity,
        worker_name: id.workerName,
        worker_id: id.workerId,
      });
    };
    const leg = new GatewayLeg({
      index,
      url: workerUrl(opts.gatewayUrl, index, workers),
      hello,
      capacity,
      handlers: opts.handlers,
      timings: this.timings,
      backoff: this.backoff,
      clock: opts.clock,
      log: opts.log,
      ...(opts.load ? { load: opts.load } : {}),
    });
    this.legs.set(index, leg);
    leg.start();
    if (this.withdrawnCause !== null) leg.withdraw(this.withdrawnCause);
  }

  private scheduleMeta(): void {
    if (!this.started) return;
    this.metaTimer = this.opts.clock.setTimeout(() => {
      this.metaTimer = null;
      void this.recheckMeta();
    }, META_RECHECK_MS);
  }

  /**
   * Re-reads `/meta`. A failure keeps the current legs (collapsing to fewer would cut live
   * streams and shed capacity over a transient error). A new count adds legs for new workers
   * and drains the legs of removed ones; existing legs are never touched (their hello declared
   * their share, and re-dialing one would cut what it serves).
   */
  async recheckMeta(): Promise<void> {
    const { opts } = this;
    let workers: number;
    try {
      workers = await readGatewayWorkers(opts.gatewayUrl, opts.fetch);
    } catch (e) {
      opts.log.debug(`gateway worker count not re-read (${(e as Error).message}); keeping ${this.planned?.workers ?? 0}`);
      this.scheduleMeta();
      return;
    }
    const was = this.planned;
    if (!this.started || !was || workers === was.workers) {
      this.scheduleMeta();
      return;
    }
    const next = planLegs(workers, opts.limits.maxInflightTotal, opts.random);
    // Keep every current leg still inside the new range; fill up to the plan's size from its indices.
    const keep = [...this.legs.keys()].filter((i) => i < workers);
    const want = new Set(keep);
    for (const i of next.indices) if (want.size < next.indices.length) want.add(i);
    for (const [i, leg] of [...this.legs]) {
      if (!want.has(i)) {
        leg.retire();
        this.legs.delete(i);
      }
    }
    // A worker URL depends on the count (`<GW>` for one, `<GW>/<i>` otherwise): across 1 <-> N every leg is new.
    if (was.workers <= 1 !== workers <= 1) {
      for (const leg of this.legs.values()) leg.retire();
      this.legs.clear();
    }
    const added: number[] = [];
    for (const i of [...want].sort((a, b) => a - b)) {
      if (this.legs.has(i)) continue;
      this.openLeg(i, workers, next.perLeg);
      added.push(i);
    }
    this.planned = { workers, indices: [...this.legs.keys()].sort((a, b) => a - b), perLeg: next.perLeg, total: next.total };
    opts.handlers.onEvent(
      -1,
      `gateway worker count ${was.workers} -> ${workers}: ${added.length} leg(s) added${added.length ? ` [${added.join(',')}]` : ''}, existing kept; now ${this.legs.size} leg(s)`,
    );
    opts.handlers.onChange();
    this.scheduleMeta();
  }
}
