// Streamed deltas go out about every 50 ms, merged by kind, instead of one frame per token.
import type { StreamDelta } from './frames.ts';
import { mergeDeltas } from './output-splitter.ts';

export class DeltaCoalescer {
  private pending: StreamDelta[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private readonly send: (delta: StreamDelta) => void;
  private readonly flushMs: number;

  constructor(send: (delta: StreamDelta) => void, flushMs: number) {
    this.send = send;
    this.flushMs = flushMs;
  }

  push(deltas: StreamDelta[]): void {
    if (this.closed || deltas.length === 0) return;
    this.pending.push(...deltas);
    if (!this.timer) this.timer = setTimeout(() => this.flush(), this.flushMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = mergeDeltas(this.pending);
    this.pending = [];
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
