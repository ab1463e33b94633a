// Finds the stalls of this thread during a bench run and says what ran in them: a 1 ms timer
// chain records every gap in the event loop (a task, a GC, or a wait for a core), with the thread's
// CPU time across it (so a gap spent waiting for a core on a loaded box is told from one spent
// working), and the slices named by electron/engine/lib/thread-slices.ts that ran inside it.
import { performance } from 'node:perf_hooks';
import { threadSlices, type SliceRecord } from '../electron/engine/lib/thread-slices.ts';
import { ms, pct } from './report.ts';

interface Gap {
  at: number;
  ms: number;
  cpuMs: number;
}

export interface StallReport {
  /** Event-loop utilisation over the run (0..1). */
  elu: number;
  gaps: Gap[];
  slices: readonly SliceRecord[];
}

export class StallFinder {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private gaps: Gap[] = [];
  private elu0 = performance.eventLoopUtilization();

  start(): void {
    threadSlices.enable();
    this.elu0 = performance.eventLoopUtilization();
    let last = performance.now();
    let cpu = threadSlices.threadCpuMs();
    const tick = () => {
      const now = performance.now();
      const c = threadSlices.threadCpuMs();
      // The timer asks for 1 ms: anything past 2 ms is the loop held (or the thread not scheduled).
      if (now - last > 2) this.gaps.push({ at: last, ms: now - last, cpuMs: c - cpu });
      cpu = c;
      last = now;
      this.timer = setTimeout(tick, 1);
    };
    this.timer = setTimeout(tick, 1);
  }

  stop(): StallReport {
    if (this.timer) clearTimeout(this.timer);
    threadSlices.disable();
    return { elu: performance.eventLoopUtilization(this.elu0).utilization, gaps: this.gaps, slices: threadSlices.recorded() };
  }
}

/** Prints the longest gaps with the slices inside them, and each slice kind's longest and p99. */
export function printStalls(r: StallReport, top = 8): void {
  const gaps = [...r.gaps].sort((a, b) => b.ms - a.ms).slice(0, top);
  console.log(`  event-loop utilisation ${(r.elu * 100).toFixed(0)}%; ${r.gaps.length} gaps over 2 ms; the longest ${gaps.length}, with the thread's CPU in each and the named slices that ran in it:`);
  for (const g of gaps) {
    const inside = new Map<string, { n: number; ms: number; cpu: number }>();
    for (const s of r.slices) {
      if (s.at + s.ms < g.at || s.at > g.at + g.ms) continue;
      const x = inside.get(s.name) ?? { n: 0, ms: 0, cpu: 0 };
      x.n++;
      x.ms += s.ms;
      x.cpu += s.cpuMs;
      inside.set(s.name, x);
    }
    const named = [...inside].map(([k, v]) => `${k} x${v.n} ${ms(v.ms, 2)} (CPU ${ms(v.cpu, 2)})`).join(', ');
    const namedCpu = [...inside.values()].reduce((a, v) => a + v.cpu, 0);
    console.log(`    ${ms(g.ms).padStart(9)} wall, CPU ${ms(g.cpuMs).padStart(8)}: ${named || 'no named slice'}; unnamed CPU ${ms(Math.max(0, g.cpuMs - namedCpu))}`);
  }
  const byName = new Map<string, SliceRecord[]>();
  for (const s of r.slices) {
    const xs = byName.get(s.name);
    if (xs) xs.push(s);
    else byName.set(s.name, [s]);
  }
  // Thread CPU is sampled at the scheduler tick: exact as a mean over many slices, not per slice.
  // Wall time per slice is exact but holds waits for a core, which a loaded box adds.
  console.log('  named slices: mean thread CPU per slice; wall p50 / p99 / max; slices over 2 ms wall');
  for (const [name, xs] of byName) {
    const wall = xs.map((x) => x.ms);
    const cpu = xs.reduce((a, x) => a + x.cpuMs, 0) / xs.length;
    console.log(
      `    ${name.padEnd(24)} x${String(xs.length).padEnd(7)} CPU ${ms(cpu, 3)}; wall ${ms(pct(wall, 0.5), 3)} / ${ms(pct(wall, 0.99), 2)} / ${ms(pct(wall, 1), 1)}; ${wall.filter((w) => w > 2).length} over 2 ms`,
    );
  }
}

/** The worst per-kind p99 wall time of the named slices (ms), and the kind; 0 when none ran. */
export function worstSliceP99(r: StallReport): { name: string; ms: number } {
  const byName = new Map<string, number[]>();
  for (const s of r.slices) {
    const xs = byName.get(s.name);
    if (xs) xs.push(s.ms);
    else byName.set(s.name, [s.ms]);
  }
  let worst = { name: 'none', ms: 0 };
  for (const [name, xs] of byName) {
    const p = pct(xs, 0.99);
    if (p > worst.ms) worst = { name, ms: p };
  }
  return worst;
}
