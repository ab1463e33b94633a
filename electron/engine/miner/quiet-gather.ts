// When a batch of guessed prompts' confirmations goes to the tokenizer: once the burst that brought
// them has stopped arriving (nothing more for `quietMs`), and never later than `maxMs` after the first.
//
// A confirmation is not on the first token's path: the request already left with the fast encoder's
// ids, and only its text waits for the tokenizer's, tens of milliseconds later. But sent per read of
// a gateway leg (about 13 batches in a burst of 64), the tokenizer's work and its thread wake-ups ran
// on two cores while the miner was still taking the burst in: the burst's requests reached the serve
// 3-5 ms later at the median than without confirmations at all (docs/performance.md, round 19).
import type { Clock } from '../lib/clock.ts';

type GatherClock = Pick<Clock, 'now' | 'setTimeout'>;

// Not lib/clock.ts's systemClock: that is the wall clock (Date.now), and a step back of the system
// time would hold a batch for as long as the step. A window of milliseconds wants a monotonic clock.
const monotonic: GatherClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
};

export class QuietGather {
  readonly #quietMs: number;
  readonly #maxMs: number;
  readonly #clock: GatherClock;
  /** The waiting batch's send. One chain of timers per batch: the next `defer` comes after this one's flush. */
  #flush: () => void = () => undefined;
  #firstAt = 0;
  #lastAt = 0;

  constructor(quietMs: number, maxMs: number, clock: GatherClock = monotonic) {
    this.#quietMs = quietMs;
    this.#maxMs = maxMs;
    this.#clock = clock;
  }

  /** The batcher's `defer`: the first text of a batch is queued; `flush` sends the batch. */
  readonly defer = (flush: () => void): void => {
    this.#flush = flush;
    this.#firstAt = this.#lastAt = this.#clock.now();
    this.#clock.setTimeout(this.#check, this.#quietMs);
  };

  /** The batcher's `more`: another text joined the batch that has not gone yet. */
  readonly more = (): void => {
    this.#lastAt = this.#clock.now();
  };

  readonly #check = (): void => {
    const now = this.#clock.now();
    const due = Math.min(this.#lastAt + this.#quietMs, this.#firstAt + this.#maxMs);
    if (now < due) {
      this.#clock.setTimeout(this.#check, due - now);
      return;
    }
    this.#flush();
  };
}
