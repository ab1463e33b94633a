// The bench's reading of the fake serve's --timing-log (bench/serve-timing.ts): whole lines only, each
// request put in the measured round of its own path, warm-up and foreign requests left out.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readServeTimings, servePhases, sinceRoundStart, type BenchPath } from '../../../bench/serve-timing.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function log(text: string): string {
  const d = mkdtempSync(join(tmpdir(), 'serve-timing-'));
  dirs.push(d);
  const p = join(d, 'timing.tsv');
  writeFileSync(p, text);
  return p;
}

const pathOf = (rid: string): BenchPath | null => (/^bench-\d+$/.test(rid) ? 'direct' : rid.startsWith('engy-') ? 'miner' : rid.startsWith('relay-') ? 'relay' : null);

describe('the serve timing log', () => {
  it('skips torn, foreign and non-numeric lines', () => {
    const p = log(
      [
        'bench-1\t1000.5\t1001\t1030\t2000',
        'bench-2\t1000\t1001', // torn
        'bench-3\tNaN\t1001\t1030\t2000',
        'bench-4\t-1\t1001\t1030\t2000',
        '__proto__\t1000\t1001\t1030\t2000',
        'a\tb\tc\td\te',
        '',
        'engy-x\t5001\t5002\t5040\t6000\textra',
        'engy-y\t5001\t5002\t5040\t6000',
      ].join('\n'),
    );
    expect(readServeTimings(p).map((t) => t.rid)).toEqual(['bench-1', '__proto__', 'engy-y']);
  });

  it("puts each request in its path's measured round; warm-up, other rounds and foreign rids are left out", () => {
    const p = log(
      [
        'bench-1\t1010\t1011\t1050\t2000', // direct round 1
        'engy-a\t1012\t1013\t1040\t2000', // in the direct round's window: not a miner round, left out
        'engy-b\t3020\t3021\t3060\t4000', // miner round
        'relay-c\t5030\t5032\t5070\t6000', // bare-relay round
        'relay-d\t3030\t3031\t3070\t4000', // in the miner round's window: left out
        'bench-9\t500\t501\t530\t600', // warm-up: before any measured round
        '__proto__\t3020\t3021\t3060\t4000', // neither path
      ].join('\n'),
    );
    const phases = servePhases(
      readServeTimings(p),
      [
        { path: 'direct', start: 1000, end: 2500 },
        { path: 'miner', start: 3000, end: 4500 },
        { path: 'relay', start: 5000, end: 5500 },
      ],
      pathOf,
    );
    expect(phases.direct).toEqual({ arrival: [10], read: [1], pace: [39] });
    expect(phases.miner).toEqual({ arrival: [20], read: [1], pace: [39] });
    expect(phases.relay).toEqual({ arrival: [30], read: [2], pace: [38] });
  });

  it("lines the miner's prompt-ready instants up with its own measured rounds only", () => {
    const rounds = [
      { path: 'direct' as const, start: 1000, end: 2500 },
      { path: 'miner' as const, start: 3000, end: 4500 },
      { path: 'miner' as const, start: 6000, end: 7500 },
    ];
    // Warm-up (before any round), a direct round's window, two miner rounds, after the last; non-numbers never match.
    expect(sinceRoundStart([500, 1200, 3012.5, 4500, 6020, 9000, Number.NaN], rounds, 'miner')).toEqual([12.5, 1500, 20]);
    expect(sinceRoundStart([], rounds, 'miner')).toEqual([]);
  });
});
