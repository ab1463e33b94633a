// Several miner engines on one box must start about 15 s apart: the gateway judges a worker's
// legs about 3 s after its first hello, and a neighbour still dialing makes it miss legs.

export class StartStagger {
  private next = 0;
  private readonly gapMs: number;
  private readonly now: () => number;

  constructor(gapMs = 15_000, now: () => number = Date.now) {
    this.gapMs = gapMs;
    this.now = now;
  }

  /** Resolves (with the ms waited) when this caller may start: at once for the first, then one gap after the previous. */
  turn(): Promise<number> {
    const t = this.now();
    const at = Math.max(t, this.next);
    this.next = at + this.gapMs;
    const wait = at - t;
    return wait <= 0 ? Promise.resolve(0) : new Promise((r) => setTimeout(() => r(wait), wait));
  }
}
