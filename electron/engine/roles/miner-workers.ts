// The gateway workers of one mining run. A managed fleet gets one worker per engine (PROTOCOL 3:
// each declares its engine's share, has its own stable name and starts ~15 s after the previous
// one); an external fleet keeps one worker over every URL, routing to the least-loaded serve.
import type { MinerSnapshot } from '../../../shared/miner.ts';
import type { ServePlan } from '../../../shared/hardware.ts';
import type { ServeRuntimeKind, ServeSnapshot } from '../../../shared/serve.ts';
import type { Disposable } from '../lib/disposable.ts';
import type { Logger } from '../lib/logger.ts';
import type { MinerService } from '../miner/miner-service.ts';
import { errorMessage } from '../../../shared/errors.ts';

export interface WorkerPlan {
  /** Positions in the fleet's engine list whose readiness lets this worker start. */
  engines: number[];
  serveUrls: string[];
  maxInflight: number;
  /** The request records' engine label. */
  engine: string;
  /** Absent: the miner engine derives the default name from its serve URLs (so it differs per engine). */
  workerName?: string;
}

export interface WorkerPlanInput {
  runtime: ServeRuntimeKind;
  /** The fleet's serve URLs, in engine order. */
  urls: string[];
  plan: ServePlan | null;
  workerName: string | null;
  maxInflightOverride: number | null;
}

/** Which workers a fleet gets, what each declares and what it is called. */
export function planWorkers(i: WorkerPlanInput): WorkerPlan[] {
  if (i.runtime === 'external') {
    return [
      {
        engines: i.urls.map((_, n) => n),
        serveUrls: [...i.urls],
        maxInflight: i.maxInflightOverride ?? i.plan?.maxInflight ?? 24,
        engine: 'engine-0',
        ...(i.workerName ? { workerName: i.workerName } : {}),
      },
    ];
  }
  return i.urls.map((url, n) => {
    const declared = i.plan?.engines[n]?.declaredInflight;
    if (declared === undefined && i.maxInflightOverride === null) throw new Error(`engine ${n} has no entry in the serve plan`);
    return {
      engines: [n],
      serveUrls: [url],
      maxInflight: i.maxInflightOverride ?? declared!,
      engine: `engine-${n}`,
      // A user-chosen name stays as typed for the first engine; the others get `-<index>` so each is its own worker.
      ...(i.workerName ? { workerName: n === 0 ? i.workerName : `${i.workerName}-${n}` } : {}),
    };
  });
}

const serving = (s: ServeSnapshot, n: number): boolean => {
  const st = s.engines[n]?.status.state;
  return st === 'ready' || st === 'degraded';
};

/** The MinerServices of one run, each started once one of its engines serves. */
export class MinerWorkers implements Disposable {
  readonly miners: readonly MinerService[];
  private readonly plans: readonly WorkerPlan[];
  private readonly log: Logger;
  private readonly started = new Map<number, Promise<void>>();
  private watch: Disposable | null = null;
  private disposed = false;

  constructor(plans: readonly WorkerPlan[], miners: readonly MinerService[], log: Logger) {
    this.plans = plans;
    this.miners = miners;
    this.log = log;
  }

  snapshots(): MinerSnapshot[] {
    return this.miners.map((m) => m.snapshot());
  }

  /** Requests in flight on any worker. */
  busy(): boolean {
    return this.miners.some((m) => m.snapshot().stats.inflight > 0);
  }

  markStartingServe(on: boolean): void {
    for (const m of this.miners) m.markStartingServe(on);
  }

  /**
   * Starts each worker as soon as one of its engines serves, now or later (engines come up one
   * after another, and one that failed may recover on a restart).
   */
  follow(fleet: { snapshot(): ServeSnapshot; onDidChange(l: (s: ServeSnapshot) => void): Disposable }): void {
    if (this.disposed) return;
    this.watch = fleet.onDidChange((s) => void this.startReady(s, false).catch(() => undefined));
    void this.startReady(fleet.snapshot(), false).catch(() => undefined);
  }

  /**
   * Starts the workers whose engines serve and waits for every start so far; `settle` also takes
   * the "starting serve" mark off the workers whose engines did not come up. Returns how many started.
   */
  async startReady(s: ServeSnapshot, settle: boolean): Promise<number> {
    if (this.disposed) return 0;
    this.plans.forEach((p, n) => {
      if (this.started.has(n)) return;
      if (p.engines.some((e) => serving(s, e))) {
        const run = this.miners[n]!.start();
        run.catch((e: unknown) => this.log.error(`worker ${n} (${p.engine}) could not start: ${errorMessage(e)}`));
        this.started.set(n, run);
      } else if (settle) {
        this.miners[n]!.markStartingServe(false);
      }
    });
    await Promise.all(this.started.values());
    return this.started.size;
  }

  /** Stops following the fleet, then closes every worker's legs. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.watch?.dispose();
    this.watch = null;
    await Promise.all(this.miners.map((m) => m.dispose()));
  }
}
