import { describe, expect, it } from 'vitest';
import { earningsMath, effectiveActivityCutoff, legacyNextEpochBlock } from '../../../electron/engine/chain/derived.ts';

describe('derived chain quantities', () => {
  it('effective activity cutoff: factor x tempo / 1000, at least 1', () => {
    expect(effectiveActivityCutoff(13889, 360)).toBe(5000);
    expect(effectiveActivityCutoff(13889, 99)).toBe(1375);
    expect(effectiveActivityCutoff(0, 360)).toBe(1);
  });

  it('legacy next epoch block (btcli formula)', () => {
    // tempo - (block + netuid + 1) % (tempo + 1): at block 307 on SN53, (307+54) % 361 = 0 -> a full tempo ahead.
    expect(legacyNextEpochBlock(307, 53, 360)).toBe(667);
    expect(legacyNextEpochBlock(308, 53, 360)).toBe(667);
    expect(legacyNextEpochBlock(666, 53, 360)).toBe(667);
  });

  it('earnings per day at the spot price', () => {
    const e = earningsMath(2_000_000_000n, 360, 20_000n * 10n ** 9n, 1_000_000n * 10n ** 9n);
    expect(e.alphaPriceTao).toBeCloseTo(0.02, 12);
    expect(e.alphaPerDay).toBeCloseTo(40, 9);
    expect(e.taoPerDayAtSpot).toBeCloseTo(0.8, 9);
    expect(earningsMath(1n, 360, 5n, 0n).alphaPriceTao).toBe(0);
  });
});
