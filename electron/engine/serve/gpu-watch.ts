import type { Clock } from '../lib/clock.ts';
import { Emitter } from '../lib/emitter.ts';

/** How long one `gpus.watch` keeps the fast pace: a client renews well before (the Mine page every 5 s). */
export const GPU_WATCH_LEASE_MS = 15_000;

/**
 * Whether any client is looking at the live GPU panel, as a renewable lease rather than an open/close
 * pair: a closed tab or a dropped WebSocket simply stops renewing, and the sampler falls back to its
 * slow pace on its own (nvidia-smi every second costs the rig a little; nobody watching, no cost).
 */
export class GpuWatch {
  private until = 0;
  private readonly clock: Clock;
  private readonly leaseMs: number;
  private readonly renewed = new Emitter<void>();
  readonly onDidRenew = this.renewed.event;

  constructor(clock: Clock, leaseMs = GPU_WATCH_LEASE_MS) {
    this.clock = clock;
    this.leaseMs = leaseMs;
  }

  /** A client watches for the next lease; returns the lease's length so the client knows when to renew. */
  renew(): number {
    this.until = this.clock.now() + this.leaseMs;
    this.renewed.fire();
    return this.leaseMs;
  }

  watched(): boolean {
    return this.clock.now() < this.until;
  }
}
