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

/**
 * The recorded slices as columns, allocated once by enable(): no object per slice, so recording
 * adds no garbage to the memory it is run beside. Full: the rest of the run is kept in the totals.
 */
class Columns {
  readonly at = new Float64Array(MAX_RECORDS);
  readonly ms = new Float64Array(MAX_RECORDS);
  readonly cpu = new Float64Array(MAX_RECORDS);
  readonly name = new Uint8Array(MAX_RECORDS);
  length = 0;
}

class ThreadSlices {
  private on = false;
  private columns: Columns | null = null;
  private readonly names: string[] = [];
  private totals = new Map<string, SliceTotals>();

  get enabled(): boolean {
    return this.on;
  }

  /** Starts recording (the bench); clears what an earlier run recorded. */
  enable(): void {
    this.on = true;
    this.columns = new Columns();
    this.names.length = 0;
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

  /** The slices recorded since enable(), in start order (the first MAX_RECORDS of them). */
  recorded(): readonly SliceRecord[] {
    const c = this.columns;
    if (!c) return [];
    return Array.from({ length: c.length }, (_, i) => ({ name: this.names[c.name[i]!]!, at: c.at[i]!, ms: c.ms[i]!, cpuMs: c.cpu[i]! }));
  }

  summary(): ReadonlyMap<string, SliceTotals> {
    return this.totals;
  }

  private add(name: string, at: number, ms: number, cpuMs: number): void {
    let s = this.totals.get(name);
    if (!s) {
      this.totals.set(name, (s = { count: 0, totalMs: 0, maxMs: 0, maxCpuMs: 0 }));
      this.names.push(name);
    }
    const c = this.columns;
    if (c && c.length < MAX_RECORDS) {
      const i = c.length++;
      c.at[i] = at;
      c.ms[i] = ms;
      c.cpu[i] = cpuMs;
      c.name[i] = this.names.indexOf(name);
    }
    s.count++;
    s.totalMs += ms;
    if (ms > s.maxMs) s.maxMs = ms;
    if (cpuMs > s.maxCpuMs) s.maxCpuMs = cpuMs;
  }
}

/** The one registry per thread (a module singleton: each worker thread has its own). */
export const threadSlices = new ThreadSlices();
