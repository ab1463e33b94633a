import type { EngineMetricsPoint } from '../../../shared/serve.ts';

/**
 * A wedged engine says nothing in its log: it has requests running while its generation counter
 * stays flat. Stalled = running > 0 and no new tokens for `stallMs` (Lium's supervisor: 300 s).
 */
export class StallDetector {
  private lastProgressAt: number | null = null;
  private lastTokens: number | null = null;
  private readonly stallMs: number;

  constructor(stallMs: number) {
    this.stallMs = stallMs;
  }

  reset(): void {
    this.lastProgressAt = null;
    this.lastTokens = null;
  }

  /** Feeds one scrape; returns true when the engine counts as stalled. */
  observe(p: EngineMetricsPoint): boolean {
    const running = p.runningReqs ?? 0;
    const tokens = p.generationTokensTotal;
    const progressed = tokens !== null && tokens !== this.lastTokens;
    if (tokens !== null) this.lastTokens = tokens;
    if (running <= 0 || progressed || this.lastProgressAt === null) {
      this.lastProgressAt = p.at;
      return false;
    }
    return p.at - this.lastProgressAt >= this.stallMs;
  }
}
