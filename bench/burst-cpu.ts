// CPU by process and thread over a round's first milliseconds, read from Linux's per-thread
// scheduler counters (/proc/<pid>/task/<tid>/schedstat). The first token of a 64-request burst is
// made in about 60 ms on a two-core box where the serve shares the cores with everyone else: what
// each party burns in that window is what the serve's first tokens wait behind. Every round of
// every path reads all parties alike (the reads' own cost lands on the bench process in each).
import { readdirSync, readFileSync } from 'node:fs';
import { ms } from './report.ts';

/** The window after a round's start that is read. */
export const BURST_WINDOW_MS = 60;
/**
 * Where the window is read once more, splitting it in two: before, the requests arrive (they reach the
 * serve 10-15 ms after the round's start here, p50); after, the serve makes the first tokens (its first
 * events come 35-55 ms in). Which part a party's CPU falls in says which wait it lengthens.
 */
export const BURST_SPLIT_MS = 25;

/** What a thread is, from its name: Node's and V8's own threads are named by them. */
export type ThreadKind = 'main' | 'V8 helpers' | 'libuv pool' | 'worker threads' | 'other';
export const THREAD_KINDS: readonly ThreadKind[] = ['main', 'V8 helpers', 'libuv pool', 'worker threads', 'other'];

/** V8Worker: V8's platform threads (optimising compilers, concurrent GC); libuv-worker: the pool (native addons' async work, fs). */
export function threadKind(comm: string, isMain: boolean): ThreadKind {
  if (isMain) return 'main';
  if (comm === 'V8Worker') return 'V8 helpers';
  if (comm === 'libuv-worker') return 'libuv pool';
  if (comm === 'WorkerThread') return 'worker threads';
  return 'other';
}

/** One process's threads: tid -> kind and CPU ms so far. */
export type TaskCpu = Map<number, { kind: ThreadKind; cpuMs: number }>;

/** A process's threads now; empty when it is gone or /proc is not there (off Linux). */
export function readTaskCpu(pid: number): TaskCpu {
  const out: TaskCpu = new Map();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tids) {
    const tid = Number(t);
    try {
      const comm = readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim();
      const cpu = Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
      if (Number.isFinite(cpu)) out.set(tid, { kind: threadKind(comm, tid === pid), cpuMs: cpu });
    } catch {
      // The thread ended between the listing and the read: it ran no more in this window.
    }
  }
  return out;
}

/** CPU ms per thread kind between two readings; a thread born in between counts whole. */
export function cpuByKind(before: TaskCpu, after: TaskCpu): Record<ThreadKind, number> {
  const out = Object.fromEntries(THREAD_KINDS.map((k) => [k, 0])) as Record<ThreadKind, number>;
  for (const [tid, a] of after) out[a.kind] += Math.max(0, a.cpuMs - (before.get(tid)?.cpuMs ?? 0));
  return out;
}

export interface WindowReading {
  /** The window as it was, start to the last reading (a late timer on a busy box makes it longer). */
  windowMs: number;
  byParty: Record<string, Record<ThreadKind, number>>;
  /** The same window in its two parts, split at BURST_SPLIT_MS (absent where a reading had none). */
  parts?: [WindowReading, WindowReading];
}

/**
 * Reads every party now, BURST_SPLIT_MS later and at BURST_WINDOW_MS. `read` and `wait` are the
 * test's to replace; a party without a pid (not started) reads as empty.
 */
export async function readWindow(
  parties: Record<string, number | undefined>,
  o: { read?: (pid: number) => TaskCpu; wait?: (ms: number) => Promise<void>; now?: () => number } = {},
): Promise<WindowReading> {
  const read = o.read ?? readTaskCpu;
  const wait = o.wait ?? ((n: number) => new Promise<void>((r) => setTimeout(r, n)));
  const now = o.now ?? (() => performance.now());
  const names = Object.keys(parties);
  const readAll = () => names.map((n) => (parties[n] === undefined ? new Map() : read(parties[n]!)) as TaskCpu);
  const between = (a: TaskCpu[], b: TaskCpu[]) => {
    const byParty: Record<string, Record<ThreadKind, number>> = Object.create(null) as Record<string, Record<ThreadKind, number>>;
    names.forEach((n, i) => (byParty[n] = cpuByKind(a[i]!, b[i]!)));
    return byParty;
  };
  const t0 = now();
  const before = readAll();
  await wait(BURST_SPLIT_MS);
  const t1 = now();
  const mid = readAll();
  await wait(BURST_WINDOW_MS - BURST_SPLIT_MS);
  const t2 = now();
  const after = readAll();
  return {
    windowMs: t2 - t0,
    byParty: between(before, after),
    parts: [
      { windowMs: t1 - t0, byParty: between(before, mid) },
      { windowMs: t2 - t1, byParty: between(mid, after) },
    ],
  };
}

/** The mean of several readings of one path (each party and kind). */
export function meanWindow(readings: readonly WindowReading[]): WindowReading | null {
  if (readings.length === 0) return null;
  const mean = meanOf(readings);
  if (!readings.every((r) => r.parts !== undefined)) return mean;
  return { ...mean, parts: [meanOf(readings.map((r) => r.parts![0])), meanOf(readings.map((r) => r.parts![1]))] };
}

function meanOf(readings: readonly WindowReading[]): WindowReading {
  const byParty: Record<string, Record<ThreadKind, number>> = Object.create(null) as Record<string, Record<ThreadKind, number>>;
  for (const r of readings) {
    for (const [party, kinds] of Object.entries(r.byParty)) {
      const into = (byParty[party] ??= Object.fromEntries(THREAD_KINDS.map((k) => [k, 0])) as Record<ThreadKind, number>);
      for (const k of THREAD_KINDS) into[k] += kinds[k] / readings.length;
    }
  }
  return { windowMs: readings.reduce((a, r) => a + r.windowMs, 0) / readings.length, byParty };
}

/** CPU ms of one party over a reading (every party when none is named); null without a reading. */
export function partyCpu(r: WindowReading | null, party?: string): number | null {
  if (!r) return null;
  let s = 0;
  for (const [p, kinds] of Object.entries(r.byParty)) if (party === undefined || p === party) for (const k of THREAD_KINDS) s += kinds[k];
  return s;
}

/**
 * The table: one column per path, one row per party and thread kind that used at least 0.5 ms in
 * some path, each party's total, and the box's total beside what two cores can give in the window.
 */
export function burstTableLines(paths: Record<string, WindowReading | null>, cores: number, header?: string): string[] {
  const cols = Object.keys(paths);
  const parties = [...new Set(cols.flatMap((c) => Object.keys(paths[c]?.byParty ?? {})))];
  const cell = (v: number | null) => (v === null ? 'n/a' : ms(v, 1)).padEnd(14);
  const lines: string[] = [];
  const window = cols.map((c) => paths[c]?.windowMs).filter((x): x is number => x !== undefined);
  const mean = window.length > 0 ? window.reduce((a, b) => a + b, 0) / window.length : BURST_WINDOW_MS;
  lines.push(
    header ?? `  CPU in a round's first ${BURST_WINDOW_MS} ms (mean per round; read ${ms(mean, 1)} after the start on average; ${cores} cores give ${ms(cores * mean, 0)} of CPU in that time):`,
  );
  lines.push(`    ${''.padEnd(34)}${cols.map((c) => c.padEnd(14)).join('')}`);
  const total = (c: string, party?: string) => partyCpu(paths[c] ?? null, party);
  for (const party of parties) {
    lines.push(`    ${party.padEnd(34)}${cols.map((c) => cell(total(c, party))).join('')}`);
    for (const k of THREAD_KINDS) {
      const vals = cols.map((c) => paths[c]?.byParty[party]?.[k] ?? null);
      if (!vals.some((v) => v !== null && v >= 0.5)) continue;
      lines.push(`      ${k.padEnd(32)}${vals.map(cell).join('')}`);
    }
  }
  lines.push(`    ${'all of them'.padEnd(34)}${cols.map((c) => cell(total(c))).join('')}`);
  return lines;
}
