import type { CheckpointProgress } from '../../../../shared/serve.ts';

const WINDOW_MS = 5_000;
const EMIT_EVERY_MS = 250;

/** Bytes done against the listed total, a rate over the last few seconds, and an ETA from it. */
export class ProgressMeter {
  private done: number;
  private filesDone: number;
  private readonly samples: Array<[number, number]> = [];
  private lastEmit = 0;
  private readonly total: number;
  private readonly filesTotal: number;
  private readonly now: () => number;

  constructor(total: number, filesTotal: number, done: number, filesDone: number, now: () => number) {
    this.total = total;
    this.filesTotal = filesTotal;
    this.done = done;
    this.filesDone = filesDone;
    this.now = now;
    this.samples.push([now(), done]);
  }

  add(bytes: number): void {
    this.done = Math.max(0, this.done + bytes);
  }

  /** Sets the bytes done outright (callers that measure the disk rather than count chunks). */
  setDone(bytes: number): void {
    this.done = Math.max(0, bytes);
  }

  fileDone(): void {
    this.filesDone++;
  }

  /** The current progress; with `throttle`, undefined unless EMIT_EVERY_MS passed since the last one (per-chunk callers). */
  progress(currentFile: string | null): CheckpointProgress;
  progress(currentFile: string | null, throttle: true): CheckpointProgress | undefined;
  progress(currentFile: string | null, throttle = false): CheckpointProgress | undefined {
    const t = this.now();
    if (throttle && t - this.lastEmit < EMIT_EVERY_MS) return undefined;
    this.lastEmit = t;
    this.samples.push([t, this.done]);
    while (this.samples.length > 2 && t - this.samples[0]![0] > WINDOW_MS) this.samples.shift();
    const [t0, b0] = this.samples[0]!;
    const rate = t > t0 ? Math.max(0, ((this.done - b0) * 1000) / (t - t0)) : 0;
    const left = Math.max(0, this.total - this.done);
    return {
      bytesDone: this.done,
      bytesTotal: this.total,
      filesDone: this.filesDone,
      filesTotal: this.filesTotal,
      rateBps: Math.round(rate),
      etaS: left === 0 ? 0 : rate > 0 ? Math.round(left / rate) : null,
      currentFile,
    };
  }
}
