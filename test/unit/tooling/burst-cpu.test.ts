// The miner bench's reading of CPU in a round's first 60 ms (bench/burst-cpu.ts): threads sorted by
// what they are, differences between two readings, means over rounds and the printed table. The
// readings and the wait are the test's own (no /proc, no timer); one reading of this process's own
// /proc checks the real reader on Linux.
import { describe, expect, it } from 'vitest';
import { BURST_SPLIT_MS, BURST_WINDOW_MS, burstTableLines, cpuByKind, meanWindow, partyCpu, readTaskCpu, readWindow, threadKind, type TaskCpu, type WindowReading } from '../../../bench/burst-cpu.ts';

const tasks = (rows: [number, ReturnType<typeof threadKind>, number][]): TaskCpu => new Map(rows.map(([tid, kind, cpuMs]) => [tid, { kind, cpuMs }]));

describe('CPU in a burst window', () => {
  it('names threads by what Node and V8 call them, the process main thread first', () => {
    expect(threadKind('node', true)).toBe('main');
    expect(threadKind('V8Worker', true)).toBe('main');
    expect(threadKind('V8Worker', false)).toBe('V8 helpers');
    expect(threadKind('libuv-worker', false)).toBe('libuv pool');
    expect(threadKind('WorkerThread', false)).toBe('worker threads');
    expect(threadKind('__proto__', false)).toBe('other');
    expect(threadKind('', false)).toBe('other');
  });

  it('counts what each thread ran between two readings; a thread born in between counts whole, one gone counts nothing', () => {
    const before = tasks([
      [10, 'main', 100],
      [11, 'V8 helpers', 50],
      [12, 'V8 helpers', 5],
      [13, 'libuv pool', 7],
    ]);
    const after = tasks([
      [10, 'main', 112.5],
      [11, 'V8 helpers', 53],
      [12, 'V8 helpers', 6],
      [14, 'worker threads', 4],
    ]);
    expect(cpuByKind(before, after)).toEqual({ main: 12.5, 'V8 helpers': 4, 'libuv pool': 0, 'worker threads': 4, other: 0 });
    // A counter that went backwards (a recycled tid) is not negative CPU.
    expect(cpuByKind(tasks([[10, 'main', 100]]), tasks([[10, 'main', 90]])).main).toBe(0);
  });

  it('reads every party at the start and again after the window, on the clock and reader it is given', async () => {
    const readings: Record<number, TaskCpu[]> = {
      1: [tasks([[1, 'main', 10]]), tasks([[1, 'main', 14]]), tasks([[1, 'main', 30]])],
      2: [tasks([[2, 'main', 0]]), tasks([[2, 'main', 1]]), tasks([[2, 'main', 1]])],
    };
    const reads: number[] = [];
    let t = 1000;
    const waited: number[] = [];
    const r = await readWindow(
      { serve: 1, miner: 2, absent: undefined },
      {
        read: (pid) => {
          reads.push(pid);
          return readings[pid]!.shift()!;
        },
        wait: async (n) => {
          waited.push(n);
          t += 67;
        },
        now: () => t,
      },
    );
    expect(waited).toEqual([BURST_SPLIT_MS, BURST_WINDOW_MS - BURST_SPLIT_MS]);
    expect(reads).toEqual([1, 2, 1, 2, 1, 2]);
    expect(r.windowMs).toBe(134);
    expect(r.byParty.serve!.main).toBe(20);
    expect(r.byParty.miner!.main).toBe(1);
    // Its two parts, each from its own readings.
    expect(r.parts!.map((p) => p.windowMs)).toEqual([67, 67]);
    expect(r.parts!.map((p) => p.byParty.serve!.main)).toEqual([4, 16]);
    expect(r.parts!.map((p) => p.byParty.miner!.main)).toEqual([1, 0]);
    expect(Object.values(r.byParty.absent!).every((v) => v === 0)).toBe(true);
    expect(Object.getPrototypeOf(r.byParty)).toBeNull();
  });

  it('takes the mean over rounds, per party and kind', () => {
    const zero = { main: 0, 'V8 helpers': 0, 'libuv pool': 0, 'worker threads': 0, other: 0 };
    const a: WindowReading = { windowMs: 60, byParty: { miner: { ...zero, main: 20, 'V8 helpers': 10 } } };
    const b: WindowReading = { windowMs: 70, byParty: { miner: { ...zero, main: 30 }, serve: { ...zero, main: 40 } } };
    const m = meanWindow([a, b])!;
    expect(m.windowMs).toBe(65);
    expect(m.byParty.miner).toEqual({ ...zero, main: 25, 'V8 helpers': 5 });
    expect(m.byParty.serve!.main).toBe(20);
    expect(meanWindow([])).toBeNull();
    // Parts are averaged too, but only when every reading has them.
    expect(m.parts).toBeUndefined();
    expect(meanWindow([a, { ...b, parts: [b, a] }])!.parts).toBeUndefined();
    const withParts = meanWindow([
      { ...a, parts: [a, b] },
      { ...b, parts: [b, a] },
    ])!;
    expect(withParts.parts![0].byParty.miner!.main).toBe(25);
    expect(withParts.parts![1].windowMs).toBe(65);
    expect(partyCpu(m, 'miner')).toBe(30);
    expect(partyCpu(m)).toBe(50);
    expect(partyCpu(m, 'relay')).toBe(0);
    expect(partyCpu(null, 'miner')).toBeNull();
  });

  it('prints a row per party with its total, the kinds that used CPU, and the box total beside what the cores give', () => {
    const zero = { main: 0, 'V8 helpers': 0, 'libuv pool': 0, 'worker threads': 0, other: 0 };
    const lines = burstTableLines(
      {
        direct: { windowMs: 60, byParty: { serve: { ...zero, main: 30 }, miner: { ...zero, main: 0.2 } } },
        'via miner': { windowMs: 64, byParty: { serve: { ...zero, main: 25 }, miner: { ...zero, main: 20, 'libuv pool': 7 } } },
        'bare relay': null,
      },
      2,
    );
    expect(burstTableLines({ x: null }, 2, '  a header of its own:')[0]).toBe('  a header of its own:');
    expect(lines[0]).toContain('first 60 ms');
    expect(lines[0]).toContain('2 cores give 124 ms');
    const row = (label: string) => lines.find((l) => l.trimStart().startsWith(label))!;
    expect(row('serve')).toMatch(/30\.0 ms\s+25\.0 ms\s+n\/a/);
    expect(row('miner')).toMatch(/0\.2 ms\s+27\.0 ms\s+n\/a/);
    expect(row('libuv pool')).toMatch(/0\.0 ms\s+7\.0 ms/);
    // No thread kind under 0.5 ms in every path gets a row of its own.
    expect(lines.some((l) => l.trimStart().startsWith('V8 helpers'))).toBe(false);
    expect(row('all of them')).toMatch(/30\.2 ms\s+52\.0 ms\s+n\/a/);
  });

  it.runIf(process.platform === 'linux')("reads this process's own threads from /proc, and nothing for a process that is not there", () => {
    const own = readTaskCpu(process.pid);
    expect(own.get(process.pid)?.kind).toBe('main');
    expect(own.get(process.pid)!.cpuMs).toBeGreaterThan(0);
    expect(readTaskCpu(2 ** 22 + 7).size).toBe(0);
  });
});
