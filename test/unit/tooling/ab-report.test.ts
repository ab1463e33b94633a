// bench/ab.ts's reading of a whole miner bench's output and its verdict over alternated pairs.
import { describe, expect, it } from 'vitest';
import { readRun, summarise, type RunFigures } from '../../../bench/ab-report.ts';

// Lines as `node bench/run.ts miner` printed them on 2026-12-05 (the rest of the output is left out).
const RECORDED = [
  'engy panel benchmarks: node 24.21.0, 2 x AMD EPYC, load 1.5 1.4 1.5',
  '  first token p50         50.9 ms         63.4 ms         12.5 ms (1.24x); net of gateway double 12.4 ms',
  'goal first token p50 via the miner / direct at 64 streams: 1.49 x (goal <= 1.05 x): MISSED - direct serve measured in the same run; a bare relay 1.00x [load 1.4 on 2 cores]',
  'goal first-token overhead p99 at 64 streams: 20.29 ms (goal < 5 ms): MISSED - net of the gateway double [load 0.8 on 2 cores]',
  '      of which pipeline start -> prompt built    10.89 ms / 27.39 ms  (template render, then tokenize with the other prompts of its read as one batch)',
  '== goals: 6 of 8 met',
  '  first token p50 via the miner / direct at 64 streams: 1.49 x (goal <= 1.05 x): MISSED - direct serve measured in the same run; a bare relay 1.00x [load 1.4 on 2 cores]',
].join('\n');

const run = (ratio: number): RunFigures => ({ ratio, relay: 1, promptP50: 9, load: 1 });

describe('reading a miner bench run', () => {
  it('takes the goal line, the relay beside it, its load and the prompt stage', () => {
    expect(readRun(RECORDED)).toEqual({ ratio: 1.49, relay: 1.0, load: 1.4, promptP50: 10.89 });
  });

  it('has no figure for a run that failed or was cut short, never a made-up one', () => {
    expect(readRun('')).toBeNull();
    expect(readRun('failed: Error: the serve did not start\n')).toBeNull();
    // The goal summary's indented copy alone is not the goal line.
    expect(readRun(RECORDED.split('\n').slice(-1)[0]!)).toBeNull();
    // Only a line that is the goal line counts, not one quoting it.
    expect(readRun('[ab] the last goal first token p50 via the miner / direct at 64 streams: 9.99 x was another build')).toBeNull();
    expect(readRun('goal first token p50 via the miner / direct at 64 streams: NaN x (goal <= 1.05 x)')).toBeNull();
    expect(readRun('goal first token p50 via the miner / direct at 64 streams: 1.2.3 x (goal <= 1.05 x)')).toBeNull();
  });

  it('reads the prompt stage under its newer name too (ids sent, 2026-12-05 after the fast encoder)', () => {
    const newer = RECORDED.replace('prompt built    10.89 ms', 'prompt ids sent 4.12 ms');
    expect(readRun(newer)?.promptP50).toBe(4.12);
  });

  it('leaves out what a line does not carry', () => {
    expect(readRun('goal first token p50 via the miner / direct at 64 streams: 1.10 x (goal <= 1.05 x): MISSED')).toEqual({ ratio: 1.1, relay: null, load: null, promptP50: null });
  });

  it('reads hostile text around the lines as text', () => {
    const noisy = `__proto__\u0000${'x'.repeat(100_000)}\n${RECORDED}\nconstructor: {"prototype": 1}`;
    expect(readRun(noisy)?.ratio).toBe(1.49);
  });
});

describe('the verdict over pairs', () => {
  it('counts the pairs the head build led and averages only whole pairs', () => {
    const text = summarise(
      [
        { base: run(1.3), head: run(1.2) },
        { base: run(1.25), head: run(1.35) },
        { base: run(1.4), head: run(1.2) },
        { base: null, head: run(1.0) },
      ],
      { base: 'base', head: 'head' },
    );
    expect(text).toContain('head ahead in 2 of 3 whole pairs, behind in 1; means 1.25x against 1.32x (1 pair(s) without a figure left out)');
    expect(text).toContain('no figure (the run failed: see its log)');
    expect(text.split('\n')).toHaveLength(6);
  });

  it('says nothing was measured when no pair is whole', () => {
    expect(summarise([{ base: null, head: null }], { base: 'base', head: 'head' })).toContain('head ahead in 0 of 0 whole pairs, behind in 0; means - against -');
  });
});
