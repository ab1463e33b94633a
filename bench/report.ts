// Shared by the benches: percentiles, scheduler figures, and the one line per goal (met / MISSED)
// every bench prints.
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function pct(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

/** Epoch ms with sub-ms precision: comparable across the bench's processes on one machine. */
export const absNow = (): number => performance.timeOrigin + performance.now();
export const ms = (x: number, digits = 1): string => `${x.toFixed(digits)} ms`;

/** Every goal is printed with its measured value and whether it is met; the run ends with the list. */
export const goals: { name: string; met: boolean; line: string }[] = [];

/**
 * `unreliable`: the run cannot judge this goal (a machine so loaded that the noise is larger than
 * the goal): printed as INCONCLUSIVE with the reason, and never counted as met.
 */
export function goal(name: string, value: number, unit: string, op: '<' | '<=' | '>=', target: number, note = '', unreliable: string | null = null): boolean {
  const reached = op === '<' ? value < target : op === '<=' ? value <= target : value >= target;
  const met = reached && unreliable === null;
  const verdict = unreliable !== null ? `INCONCLUSIVE (${unreliable}; as measured it would be ${reached ? 'met' : 'missed'})` : met ? 'met' : 'MISSED';
  const shown = Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 1 ? value.toFixed(2) : value.toPrecision(3);
  // Every line carries the machine load it was measured at: the goals table is read long after the run.
  const load = `load ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`;
  const line = `goal ${name}: ${shown} ${unit} (goal ${op} ${target} ${unit}): ${verdict}${note ? ` - ${note}` : ''} [${load}]`;
  goals.push({ name, met, line });
  console.log(line);
  return met;
}

/** Linux scheduler figures for one thread: CPU time, time runnable but waiting for a core, slices run. */
export interface SchedStat {
  cpuMs: number;
  waitMs: number;
  slices: number;
}

export function schedStat(pid: number | undefined, tid = pid): SchedStat | null {
  try {
    const [cpu, wait, slices] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    return { cpuMs: cpu! / 1e6, waitMs: wait! / 1e6, slices: slices! };
  } catch {
    return null;
  }
}

export function schedDelta(a: SchedStat | null, b: SchedStat | null): SchedStat | null {
  return a && b ? { cpuMs: b.cpuMs - a.cpuMs, waitMs: b.waitMs - a.waitMs, slices: b.slices - a.slices } : null;
}

/** A process's resident and peak memory (bytes) and thread count, from /proc/<pid>/status (Linux). */
export function procMemory(pid: number | 'self'): { rssBytes: number; peakBytes: number; threads: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { rssBytes: field('VmRSS') * 1024, peakBytes: field('VmHWM') * 1024, threads: field('Threads') };
}

/** A full collection of this process's heap, when V8 lets us ask for one. */
export function collectGarbage(): void {
  try {
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  } catch {
    // No gc: the caller's reading is a little noisier.
  }
}
