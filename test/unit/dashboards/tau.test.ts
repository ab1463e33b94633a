import { describe, expect, it } from 'vitest';
import type { EpochEarnings } from '../../../shared/earnings.ts';
import { estimatePerDay, findGaps, minerPoolAlphaPerSec, projectTao, realiseTao, toInstant, totalSince, type ChainRead } from '../../../electron/engine/earnings/tau.ts';
import { parseStoredEpoch } from '../../../electron/engine/earnings/earnings-store.ts';

const H = 3_600_000;
function epoch(i: number, over: Partial<EpochEarnings> = {}): EpochEarnings {
  return {
    epochIndex: i,
    digest: 'd',
    epochStart: null,
    epochEnd: null,
    weight: 32768,
    weightShare: 0.5,
    gate: { passed: true, reason: null },
    row: null,
    burn: false,
    startMs: i * H,
    endMs: (i + 1) * H,
    projectedTao: 1,
    projectedNote: '',
    realisedTao: 0.5,
    realisedNote: '',
    realisedRunning: false,
    tokens: null,
    ...over,
  };
}

describe('τ per epoch', () => {
  it('reads epoch boundaries as unix seconds, ms or ISO, and refuses anything else', () => {
    expect(toInstant('1767225600')).toBe(1_767_225_600_000);
    expect(toInstant('1767225600000')).toBe(1_767_225_600_000);
    expect(toInstant('2026-01-01T00:00:00Z')).toBe(Date.UTC(2026, 0, 1));
    for (const bad of [null, '', 'yesterday', '__proto__', 'x'.repeat(100), '12']) expect(toInstant(bad)).toBeNull();
  });

  it('reads the miner half from my emission, my dividends included (a hotkey that mines and validates)', () => {
    // A pure miner: 25 % of the miner half is 0.01 α/s, so the half is 0.04 α/s.
    expect(minerPoolAlphaPerSec(0.01, 0.25, 0)).toBeCloseTo(0.04, 12);
    // The same mining plus all of the validator half (dividends 1): 0.05 α/s over (0.25 + 1) halves.
    expect(minerPoolAlphaPerSec(0.05, 0.25, 1)).toBeCloseTo(0.04, 12);
    // No incentive: nothing says what the miners' half is.
    expect(minerPoolAlphaPerSec(0.05, 0, 1)).toBeNull();
    // Hostile reads: a share that is not a number counts as none, an emission that is not one gives nothing.
    expect(minerPoolAlphaPerSec(0.01, 0.25, Number.NaN)).toBeCloseTo(0.04, 12);
    expect(minerPoolAlphaPerSec(0.01, 0.25, -1)).toBeCloseTo(0.04, 12);
    expect(minerPoolAlphaPerSec(Number.NaN, 0.25, 0)).toBeNull();
    expect(minerPoolAlphaPerSec(0.01, Number.NaN, 0)).toBeNull();
  });

  it('projects weight share x miner pool x duration x price, and says so', () => {
    const reads: ChainRead[] = [{ at: 1.5 * H, alphaPerSec: 0.01, poolAlphaPerSec: 0.1, priceTao: 0.02 }];
    const p = projectTao({ weightShare: 0.5, startMs: H, endMs: 2 * H, burn: false }, reads);
    expect(p.tao).toBeCloseTo(0.5 * 0.1 * 3600 * 0.02, 12);
    expect(p.note).toMatch(/50\.00 % x .* α\/s miner emission x 3600 s/);
    expect(projectTao({ weightShare: 0, startMs: H, endMs: 2 * H, burn: true }, reads)).toEqual({ tao: 0, note: expect.stringMatching(/burn epoch/) });
    expect(projectTao({ weightShare: 0.5, startMs: null, endMs: 2 * H, burn: false }, reads).tao).toBeNull();
    expect(projectTao({ weightShare: 0.5, startMs: H, endMs: 2 * H, burn: false }, [{ ...reads[0]!, poolAlphaPerSec: null }]).tao).toBeNull();
  });

  it('realises what the chain emitted while the weights applied (its end to the next end)', () => {
    const reads: ChainRead[] = [
      { at: 2.2 * H, alphaPerSec: 0.01, poolAlphaPerSec: null, priceTao: 0.02 },
      { at: 2.8 * H, alphaPerSec: 0.03, poolAlphaPerSec: null, priceTao: 0.02 },
      { at: 5 * H, alphaPerSec: 99, poolAlphaPerSec: null, priceTao: 1 },
    ];
    const r = realiseTao(2 * H, 3 * H, reads, 10 * H);
    // The first read covers 30 min (capped), the second until the window ends (12 min).
    expect(r.tao).toBeCloseTo(0.01 * 1800 * 0.02 + 0.03 * 720 * 0.02, 12);
    expect(r.note).toMatch(/2 chain reads .* covering 2520 s of the 3600 s/);
    expect(realiseTao(6 * H, 7 * H, reads, 10 * H).tao).toBeNull();
  });

  it('totals by window, estimates per day from recent epochs, and explains gaps', () => {
    const epochs = [epoch(10), epoch(9), epoch(7), epoch(6, { projectedTao: null })];
    expect(totalSince(epochs, 8 * H + 1)).toEqual({ projectedTao: 2, realisedTao: 1, epochs: 2 });
    const est = estimatePerDay(epochs);
    expect(est.tao).toBeCloseTo(24, 9); // 1 τ per 1 h epoch
    expect(est.basis).toBe('projected, from the last 3 epochs (#7 to #10, 3 h of serving)');
    // Too few epochs make no estimate (one 28 s epoch scaled to a day is noise), and it says how many it has.
    expect(estimatePerDay([epoch(2)])).toEqual({ tao: null, basis: 'an estimate needs 3 verified epochs; 1 so far' });
    expect(estimatePerDay([epoch(3), epoch(2)]).tao).toBeNull();
    const outage = { source: 'provider' as const, from: 8 * H + 60_000, to: 8 * H + 272_000, error: 'connect ECONNREFUSED' };
    const gaps = findGaps(epochs, new Map([[8, 'HTTP 404']]), [outage]);
    expect(gaps.map((g) => g.epochIndex)).toEqual([8]);
    expect(gaps[0]!.reason).toMatch(/^provider outage; fetching it later failed too: HTTP 404/);
    expect(gaps[0]!.outage).toEqual(outage);
    expect(findGaps([epoch(3), epoch(1)], new Map(), [])[0]!.reason).toMatch(/not running/);
  });

  it('a stored epoch is re-checked on read: corrupt rows are dropped', () => {
    for (const bad of ['', '{', 'null', '[]', '{"epochIndex":"1"}', '{"epochIndex":1,"digest":"d","weight":1,"weightShare":0.1}']) expect(parseStoredEpoch(bad)).toBeNull();
    const ok = parseStoredEpoch(
      JSON.stringify({
        epochIndex: 4,
        digest: 'd',
        epochStart: 5,
        epochEnd: '2026',
        weight: 1,
        weightShare: 7,
        gate: { passed: 'yes', reason: 3 },
        row: [1],
        burn: 'true',
        __proto__: { polluted: true },
      }),
    );
    expect(ok).toEqual({ epochIndex: 4, digest: 'd', epochStart: null, epochEnd: '2026', weight: 1, weightShare: 1, gate: { passed: null, reason: null }, row: null, burn: false });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
