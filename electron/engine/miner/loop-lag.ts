// Event-loop lag probe: the thread that answers gateway pings must never stall (a 60 s stall
// drops every leg on keepalive timeout). Wakes every 250 ms and records the overshoot.
import type { LoopHealth } from '../../../shared/miner.ts';
import { percentile } from './stats.ts';

export class LoopLagProbe {
  private readonly samples: number[] = [];
  private max = 0;
  private stalls = 0;
  private inflightAtMax = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  private readonly inflight: () => number;
  private readonly intervalMs: number;
  private readonly keep: number;

  constructor(inflight: () => number, intervalMs = 250, keep = 2400) {
    this.inflight = inflight;
    this.intervalMs = intervalMs;
    this.keep = keep;
  }

  start(): void {
    if (this.timer) return;
    let expected = performance.now() + this.intervalMs;
    const tick = () => {
      const now = performance.now();
      this.record(Math.max(0, now - expected));
      expected = now + this.intervalMs;
      this.timer = setTimeout(tick, this.intervalMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  record(lagMs: number): void {
    this.samples.push(lagMs);
    if (this.samples.length > this.keep) this.samples.shift();
    if (lagMs >= 1000) this.stalls += 1;
    if (lagMs > this.max) {
      this.max = lagMs;
      this.inflightAtMax = this.inflight();
    }
  }

  health(): LoopHealth {
    const sorted = [...this.samples].sort((a, b) => a - b);
    return { lagP99Ms: Math.round(percentile(sorted, 99) ?? 0), windowMs: this.keep * this.intervalMs, lagMaxMs: Math.round(this.max), stalls: this.stalls, inflightAtMaxLag: this.inflightAtMax };
  }
}
