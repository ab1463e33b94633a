// Streamed deltas, merged by kind, at most one frame per `flushMs` per request. The first delta
// (and any delta after a quiet spell of `flushMs`) goes out at once: the buyer's first token is a
// gate the gateway measures, so it never waits for a timer. Deltas arriving inside the window are
// held and sent when the window since the last send closes.
import type { StreamDelta } from './frames.ts';
import { mergeDeltas } from './output-splitter.ts';

export class DeltaCoalescer {
  private pending: StreamDelta[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  /** When the last frame went out; -Infinity until the first, so the first is sent at once. */
  private lastSent = Number.NEGATIVE_INFINITY;
  private readonly send: (delta: StreamDelta) => void;
  private readonly flushMs: number;
  private readonly now: () => number;

  constructor(send: (delta: StreamDelta) => void, flushMs: number, now: () => number = () => performance.now()) {
    this.send = send;
    this.flushMs = flushMs;
    this.now = now;
  }

  push(deltas: StreamDelta[]): void {
    if (this.closed || deltas.length === 0) return;
    this.pending.push(...deltas);
    if (this.timer) return;
    const wait = this.lastSent + this.flushMs - this.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = mergeDeltas(this.pending);
    this.pending = [];
    this.lastSent = this.now();
    for (const d of batch) this.send(d);
  }

  /** Flush what is pending (or drop it, after a failure or cancel) and accept nothing more. */
  close(flush = true): void {
    if (flush) this.flush();
    else if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = [];
    this.closed = true;
  }
}
