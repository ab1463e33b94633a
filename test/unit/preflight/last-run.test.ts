// The last mining run's summary: added up over workers, and a hand-edited or truncated file is
// ignored rather than trusted.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MinerSnapshot } from '../../../shared/miner.ts';
import { parseRunSummary, readRunSummary, summarizeRun, writeRunSummary } from '../../../electron/engine/preflight/last-run.ts';

const miner = (ok: number, errors: number, ttft: number | null, tps: number): MinerSnapshot =>
  ({
    phase: 'active',
    detail: 'serving',
    stats: { ok, errors, cancelled: 1, tokensPerSecond: tps, ttftMs: { p50: null, p99: ttft, count: 1 }, tpotMs: { p50: null, p99: 40, count: 1 } },
  }) as unknown as MinerSnapshot;

describe('last mining run', () => {
  it('adds the workers up and keeps the worst p99', () => {
    const s = summarizeRun(1_000, 61_000, [miner(99, 1, 5_000, 100), miner(100, 0, 9_000, 50)]);
    expect(s).toMatchObject({ workers: 2, ok: 199, errors: 1, cancelled: 2, acceptanceRate: 199 / 200, ttftP99Ms: 9_000, tpotP99Ms: 40, tokensPerSecond: 150, lastPhase: 'active' });
    expect(summarizeRun(0, 1, [])).toMatchObject({ workers: 0, acceptanceRate: null, ttftP99Ms: null, lastPhase: 'stopped' });
  });

  it('round-trips through its file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'engy-lastrun-')), 'mining-last-run.json');
    expect(readRunSummary(file)).toBeNull();
    const s = summarizeRun(1, 2, [miner(3, 0, null, 1)]);
    writeRunSummary(file, s);
    expect(readRunSummary(file)).toEqual(s);
  });

  it('ignores hostile files: not JSON, wrong types, negative or huge values, prototype keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engy-lastrun-'));
    const good = summarizeRun(1, 2, [miner(3, 0, null, 1)]);
    const cases: string[] = [
      '{"startedAt": 1,',
      '[]',
      'null',
      JSON.stringify({ ...good, ok: -1 }),
      JSON.stringify({ ...good, ttftP99Ms: 'fast' }),
      JSON.stringify({ ...good, lastDetail: 'x'.repeat(5000) }),
      JSON.stringify({ ...good, startedAt: null }),
    ];
    cases.forEach((text, i) => {
      const f = join(dir, `c${i}.json`);
      writeFileSync(f, text);
      expect(readRunSummary(f)).toBeNull();
    });
    const polluted = parseRunSummary(JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(good).slice(1)}`));
    expect(polluted).toEqual(good);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
