// Names for the known slices of work on the engine's thread (a parser chunk handed to its worker,
// a proof hand-off, a snapshot publish, a DB batch, a metrics scrape), so a stall can be pinned on
// what ran in it. Off by default, and then one boolean test per slice; the bench turns it on and
// lines the slices up with the event loop's longest gaps (bench/thread-stalls.ts). Issue 30: the
// stall that regressed loop lag to 40 ms was found this way and must stay findable.

export interface SliceRecord {
  name: string;
  /** performance.now() at the slice's start, and its wall duration (ms). */
  at: number;
  ms: number;
  /** The thread's CPU time in the slice (ms; see threadCpuMs): wall time also holds waits for a core. */
  cpuMs: number;
}

export interface SliceTotals {
  count: number;
  totalMs: number;
  maxMs: number;
  maxCpuMs: number;
}

const MAX_RECORDS = 200_000;

class ThreadSlices {
  private on = false;
  private records: SliceRecord[] = [];
  private totals = new Map<string, SliceTotals>();

  get enabled(): boolean {
    return this.on;
  }

  /** Starts recording (the bench); clears what an earlier run recorded. */
  enable(): void {
    this.on = true;
    this.records = [];
    this.totals.clear();
  }

  disable(): void {
    this.on = false;
  }

  /**
   * This thread's CPU time (ms). Linux samples it at the scheduler tick and scales it to the exact
   * total, so one sub-ms slice's figure is noisy while a sum or mean over many is exact.
   */
  threadCpuMs(): number {
    const u = process.threadCpuUsage();
    return (u.user + u.system) / 1000;
  }

  /** Runs fn as the named slice: timed when recording, called as is otherwise. */
  run<T>(name: string, fn: () => T): T {
    if (!this.on) return fn();
    const c = this.threadCpuMs();
    const t = performance.now();
    try {
      return fn();
    } finally {
      const ms = performance.now() - t;
      this.add(name, t, ms, this.threadCpuMs() - c);
    }
  }

  /** The slices recorded since enable(), in start order (bounded: the oldest are dropped). */
  recorded(): readonly SliceRecord[] {
    return this.records;
  }

  summary(): ReadonlyMap<string, SliceTotals> {
    return this.totals;
  }

  private add(name: string, at: number, ms: number, cpuMs: number): void {
    if (this.records.length >= MAX_RECORDS) this.records.splice(0, MAX_RECORDS / 2);
    this.records.push({ name, at, ms, cpuMs });
    let s = this.totals.get(name);
    if (!s) this.totals.set(name, (s = { count: 0, totalMs: 0, maxMs: 0, maxCpuMs: 0 }));
    s.count++;
    s.totalMs += ms;
    if (ms > s.maxMs) s.maxMs = ms;
    if (cpuMs > s.maxCpuMs) s.maxCpuMs = cpuMs;
  }
}

/** The one registry per thread (a module singleton: each worker thread has its own). */
export const threadSlices = new ThreadSlices();
