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

export class GatewayClient {
  private legs: GatewayLeg[] = [];
  private planned: LegPlan | null = null;

  private readonly opts: GatewayClientOptions;

  constructor(opts: GatewayClientOptions) {
    this.opts = opts;
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
    const capacity: Capacity = {
      max_inflight: plan.perLeg,
      max_inflight_total: plan.total,
      max_input_tokens: opts.limits.maxInputTokens,
      max_output_tokens: opts.limits.maxOutputTokens,
      max_request_s: opts.limits.maxRequestS,
    };
    // An old socket drains as long as a request on it may still run: the deadline we declare.
    const timings = { ...DEFAULT_LEG_TIMINGS, drainMaxMs: opts.limits.maxRequestS * 1000, ...opts.timings };
    const backoff = opts.backoff ?? { initialMs: 500, maxMs: 30_000, jitter: 0.3 };
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
    opts.handlers.onEvent(
      -1,
      `dialing ${plan.indices.length} of ${workers} worker(s) of ${opts.gatewayUrl} as ${opts.identity.model} root=${opts.identity.modelRoot.slice(0, 12)} leg_inflight=${plan.perLeg} total_inflight=${plan.total} legs=[${plan.indices.join(',')}]`,
    );
    this.legs = plan.indices.map(
      (index) =>
        new GatewayLeg({ index, url: workerUrl(opts.gatewayUrl, index, workers), hello, capacity, handlers: opts.handlers, timings, backoff, clock: opts.clock, log: opts.log, ...(opts.load ? { load: opts.load } : {}) }),
    );
    for (const leg of this.legs) leg.start();
    return plan;
  }

  stop(): void {
    for (const leg of this.legs) leg.stop();
  }

  snapshot(): LegSnapshot[] {
    return this.legs.map((l) => l.snapshot());
  }

  get liveLegs(): number {
    return this.legs.filter((l) => l.live).length;
  }

  get admittedLegs(): number {
    return this.legs.filter((l) => l.isAdmitted).length;
  }

  get denyReasons(): string[] {
    return this.legs.map((l) => l.denied).filter((r): r is string => r !== null);
  }

  get inflight(): number {
    return this.legs.reduce((n, l) => n + l.inflight, 0);
  }
}
