// TEST DOUBLE: a Clock (electron/engine/lib/clock.ts) whose time moves only when a test calls advance(),
// firing due timers in order and letting the promises they start settle, so pacing is tested without sleeps.
import type { Clock } from '../../electron/engine/lib/clock.ts';

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: ++this.seq, at: this.t + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }

  /** Timers still waiting, for assertions. */
  pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by ms, firing each due timer at its own time and settling what it started. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await settle();
    for (;;) {
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = next.at;
      next.fn();
      await settle();
    }
    this.t = end;
  }
}

/** Lets chained promise callbacks (an awaited stand-in exec, a finally) run to the end. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
