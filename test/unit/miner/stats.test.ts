import { describe, expect, it } from 'vitest';
import type { MinerRequestRecord } from '../../../shared/miner.ts';
import { computeStats, DEFAULT_TARGETS, forecastGates, percentile } from '../../../electron/engine/miner/stats.ts';

function rec(i: number, over: Partial<MinerRequestRecord> = {}): MinerRequestRecord {
  return {
    corrId: `c${i}`,
    requestId: `r${i}`,
    leg: 0,
    engine: 'e0',
    stream: true,
    receivedAt: 1000 + i,
    ttftMs: 1000,
    tpotMs: 50,
    e2eMs: 2000,
    promptTokens: 10,
    completionTokens: 20,
    cachedTokens: 0,
    proofMs: 5,
    outcome: 'ok',
    finishReason: 'stop',
    cause: null,
    ...over,
  };
}

describe('stats and gate forecast', () => {
  it('computes nearest-rank percentiles', () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99)).toBe(10);
    expect(percentile([], 99)).toBeNull();
  });

  it('leaves cancelled requests out of the acceptance denominator', () => {
    const recs = [rec(1), rec(2, { outcome: 'cancelled' }), rec(3, { outcome: 'error' })];
    const s = computeStats(recs, 10_000, 60_000, 0, 0);
    expect(s.acceptanceRate).toBe(0.5);
    expect(s.cancelled).toBe(1);
  });

  it('forecasts in plain words', () => {
    const few = computeStats([rec(1)], 10_000, 60_000, 0, 0);
    expect(forecastGates(few, DEFAULT_TARGETS, null)).toMatchObject({ status: 'no-data' });
    const good = computeStats(
      Array.from({ length: 30 }, (_, i) => rec(i)),
      10_000,
      60_000,
      0,
      0,
    );
    expect(forecastGates(good, DEFAULT_TARGETS, null)).toEqual({ status: 'on-track', text: 'on track', gate: null });
    const slow = computeStats(
      Array.from({ length: 30 }, (_, i) => rec(i, { ttftMs: 84_000 })),
      10_000,
      60_000,
      0,
      0,
    );
    expect(forecastGates(slow, DEFAULT_TARGETS, null)).toEqual({ status: 'at-risk', text: 'at risk: TTFT p99 84 s of 100 s', gate: 'ttft' });
    const failing = computeStats([...Array.from({ length: 30 }, (_, i) => rec(i)), rec(99, { outcome: 'error' })], 10_000, 60_000, 0, 0);
    expect(forecastGates(failing, DEFAULT_TARGETS, null).text).toBe('failing: acceptance 96.8% below 99.0%');
  });
});
