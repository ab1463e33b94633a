export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor?: number;
  /** 0..1: the share of each delay that is randomised, so many clients do not retry in lockstep. */
  jitter?: number;
  random?: () => number;
}

/** Capped exponential backoff with jitter; `reset()` after a stable period. */
export class Backoff {
  private attempt = 0;
  private readonly opts: Required<BackoffOptions>;
  constructor(opts: BackoffOptions) {
    this.opts = { factor: 2, jitter: 0.2, random: Math.random, ...opts };
  }
  get attempts(): number {
    return this.attempt;
  }
  next(): number {
    const { initialMs, maxMs, factor, jitter, random } = this.opts;
    const base = Math.min(maxMs, initialMs * factor ** this.attempt);
    this.attempt += 1;
    const spread = base * jitter;
    return Math.max(0, Math.round(base - spread + random() * 2 * spread));
  }
  reset(): void {
    this.attempt = 0;
  }
}
