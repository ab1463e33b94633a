// The load this worker process reports on every heartbeat and ping reply, on every leg: one
// count for the whole process. A leg's own count is only its share, which the gateway worker
// behind it already knows; the process-wide one is what tells it the worker is busy elsewhere.
import type { Clock } from '../lib/clock.ts';
import type { KvLoad } from './frames.ts';
import { MAX_GATEWAY_WORKERS } from './leg-plan.ts';

export interface LoadView {
  inflight(): number;
  /** Seconds since the process last had nothing in flight; 0 while busy. */
  idleSeconds(): number;
  /** The serve's KV-cache use as last read (serve-health.ts); null when unknown. */
  kv?(): KvLoad | null;
}

export class WorkerLoad implements LoadView {
  private count = 0;
  private idleSince: number;
  private readonly clock: Clock;
  private readonly listeners = new Set<() => void>();
  /** Where the KV read comes from (the engine's serve watch). */
  kvSource: (() => KvLoad | null) | null = null;

  constructor(clock: Clock) {
    this.clock = clock;
    this.idleSince = clock.now();
  }

  /** Called on every start and end of a request (the gateway client pushes a heartbeat, coalesced). */
  listen(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  start(): void {
    this.count += 1;
    this.notify();
  }

  done(): void {
    this.count = Math.max(0, this.count - 1);
    if (this.count === 0) this.idleSince = this.clock.now();
    this.notify();
  }

  kv(): KvLoad | null {
    return this.kvSource?.() ?? null;
  }

  private notify(): void {
    for (const fn of this.listeners) fn();
  }

  inflight(): number {
    return this.count;
  }

  idleSeconds(): number {
    return this.count > 0 ? 0 : Math.max(0, (this.clock.now() - this.idleSince) / 1000);
  }
}

/**
 * ENGY_GW_WORKERS: the gateway's worker count given by the operator, used instead of `/meta`
 * (as the reference miner does). Null when unset; an error sentence when unusable.
 */
export function gatewayWorkersFromEnv(env: NodeJS.ProcessEnv): { workers: number | null; error: string | null } {
  const raw = env.ENGY_GW_WORKERS;
  if (raw === undefined || raw.trim() === '') return { workers: null, error: null };
  const t = raw.trim();
  if (!/^\d{1,4}$/.test(t)) return { workers: null, error: `ENGY_GW_WORKERS=${JSON.stringify(raw.slice(0, 40))} is not a whole number of gateway workers; reading the count from the gateway instead` };
  return { workers: Math.min(MAX_GATEWAY_WORKERS, Math.max(1, Number(t))), error: null };
}
