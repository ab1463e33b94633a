// The miner's phase as a user sees it, derived from the legs and the traffic, with a bounded
// history of transitions. The gateway never says "you are active": probing vs active is read
// off the traffic (a worker keeps getting requests after its probe window), and says so.
import type { MinerPhase, MinerTransition } from '../../../shared/miner.ts';

export interface PhaseInputs {
  stopped: boolean;
  startingServe: boolean;
  failure: string | null;
  /** Why the serve failed its health gate (legs withdrawn); null while healthy. */
  withdrawn: string | null;
  planned: number;
  live: number;
  admitted: number;
  denyReasons: string[];
  /** Had every planned leg live at some point. */
  wasComplete: boolean;
  servedOk: number;
  firstServeAt: number | null;
  now: number;
  probeWindowMs: number;
  probeMinRequests: number;
}

export function derivePhase(i: PhaseInputs, wasActive: boolean): { phase: MinerPhase; detail: string } {
  // A worker whose serve is still coming up (or being rehearsed) has not started, yet it is not stopped:
  // Start was pressed, and the page offers Stop.
  if (i.stopped && i.startingServe) return { phase: 'starting-serve', detail: 'starting the serve' };
  if (i.stopped) return { phase: 'stopped', detail: 'stopped' };
  if (i.failure !== null) return { phase: 'failed', detail: i.failure };
  if (i.withdrawn !== null) return { phase: 'withdrawn', detail: `withdrawn: serve unhealthy (${i.withdrawn})` };
  if (i.startingServe) return { phase: 'starting-serve', detail: 'starting the serve' };
  const reason = i.denyReasons[0];
  if (reason !== undefined) return wasActive ? { phase: 'pulled', detail: `pulled: ${reason}` } : { phase: 'denied', detail: `denied: ${reason}` };
  if (i.planned === 0) return { phase: 'connecting', detail: 'reading the gateway worker count' };
  if (i.live < i.planned || i.admitted < i.planned) {
    const k = Math.min(i.live, i.admitted);
    return i.wasComplete ? { phase: 'reconnecting', detail: `reconnecting (${k} of ${i.planned} legs)` } : { phase: 'connecting', detail: `connecting (${k} of ${i.planned} legs)` };
  }
  if (i.firstServeAt === null) return { phase: 'waiting-for-probe', detail: `all ${i.planned} legs admitted; waiting for probe traffic` };
  if (wasActive || (i.servedOk >= i.probeMinRequests && i.now - i.firstServeAt >= i.probeWindowMs)) {
    return { phase: 'active', detail: `serving (${i.servedOk} answered; traffic continued past the probe window)` };
  }
  return { phase: 'probing', detail: `probing (${i.servedOk} answered)` };
}

export class PhaseHistory {
  private readonly items: MinerTransition[] = [];
  private readonly max: number;

  constructor(max = 200) {
    this.max = max;
  }

  /** Records a transition when the phase changes; returns true when it did. */
  update(at: number, phase: MinerPhase, detail: string): boolean {
    const last = this.items[this.items.length - 1];
    if (last && last.phase === phase) {
      last.detail = detail;
      return false;
    }
    this.items.push({ at, phase, detail });
    if (this.items.length > this.max) this.items.shift();
    return true;
  }

  get current(): MinerTransition | undefined {
    return this.items[this.items.length - 1];
  }

  list(): MinerTransition[] {
    return this.items.map((t) => ({ ...t }));
  }

  everActive(): boolean {
    return this.items.some((t) => t.phase === 'active');
  }
}
