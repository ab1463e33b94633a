import type { Clock } from '../lib/clock.ts';

/**
 * Runs `tick` every `intervalMs`, measured from the end of the previous run, so a slow scrape
 * can never overlap the next one. `tick` errors are the caller's business (catch inside).
 */
export class PollLoop {
  private timer: unknown = null;
  private running = false;
  private readonly clock: Clock;
  private readonly tick: () => Promise<void>;
  intervalMs: number;

  constructor(clock: Clock, intervalMs: number, tick: () => Promise<void>) {
    this.clock = clock;
    this.intervalMs = intervalMs;
    this.tick = tick;
  }

  get active(): boolean {
    return this.running;
  }

  /** Starts (or restarts) the loop; the first run is after `firstDelayMs`. */
  start(firstDelayMs = 0): void {
    this.stop();
    this.running = true;
    this.schedule(firstDelayMs);
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      if (!this.running) return;
      void this.tick()
        .catch(() => undefined)
        .finally(() => {
          if (this.running && this.timer === null) this.schedule(this.intervalMs);
        });
    }, ms);
  }
}
