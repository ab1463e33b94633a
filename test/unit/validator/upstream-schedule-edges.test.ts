// Upstream's tests/test_schedule.py edges that had no counterpart here (see docs/validator.md, the table).
import { describe, expect, it } from 'vitest';
import { decide, effectiveInterval, NOMINAL_BLOCK_MS, pregateSkip } from '../../../electron/engine/validator/schedule.ts';
import { DEFAULT_RESUBMIT_BLOCKS, PREGATE_FRACTION, RATE_LIMIT_MARGIN_BLOCKS } from '../../../electron/engine/validator/constants.ts';

const T = 1_784_601_234_000;
const N = DEFAULT_RESUBMIT_BLOCKS;
const INTERVAL_MS = N * NOMINAL_BLOCK_MS;
const base = { epochIndex: 12, lastApplied: 12, currentBlock: 5000, lastSubmitBlock: 4900, nowMs: T, lastSubmitMs: T, intervalBlocks: N };
/** SN53's WeightsSetRateLimit. */
const RATE_LIMIT = 100;

describe('schedule edges (upstream test_schedule.py)', () => {
  it('the very first submission has no history at all to compare and submits', () => {
    expect(decide({ ...base, lastApplied: null, lastSubmitBlock: null, lastSubmitMs: null, currentBlock: null })).toEqual({ submit: true, why: 'new-epoch' });
  });

  it('resubmits past the interval as well as exactly at it', () => {
    expect(decide({ ...base, currentBlock: 4900 + N })).toEqual({ submit: true, why: 'interval-elapsed' });
    expect(decide({ ...base, currentBlock: 4900 + N + 50 })).toEqual({ submit: true, why: 'interval-elapsed' });
  });

  it('falls back to the wall clock when only the last submit block is missing', () => {
    expect(decide({ ...base, lastSubmitBlock: null, nowMs: T + INTERVAL_MS }).submit).toBe(true);
    expect(decide({ ...base, lastSubmitBlock: null, nowMs: T + INTERVAL_MS - 1000 })).toMatchObject({ submit: false, why: 'too-soon', blocksLeft: null, msLeft: 1000 });
  });

  it('the block number wins over the wall clock when both are known', () => {
    // Blocks say one block in, the clock says ten intervals overdue: blocks are the authority.
    expect(decide({ ...base, currentBlock: 4901, nowMs: T + 10 * INTERVAL_MS })).toMatchObject({ submit: false, why: 'too-soon', blocksLeft: N - 1 });
  });

  it('a block below the last submission (a reorganised chain, a lagging node) waits, as upstream does (issue 32 item 9)', () => {
    // Negative distance: never submit into what may still be the rate-limit window.
    expect(decide({ ...base, currentBlock: 4890, nowMs: T + 10 * INTERVAL_MS })).toMatchObject({ submit: false, why: 'too-soon', blocksLeft: N + 10 });
    expect(decide({ ...base, currentBlock: 5000, lastUpdate: 5003 })).toMatchObject({ submit: false, why: 'too-soon', blocksLeft: N + 3 });
  });

  it("counts from the chain's LastUpdate for this uid when it is known, whatever the state file says", () => {
    // The state anchors on the block read before submitting (4900); the extrinsic was included at 4902.
    expect(decide({ ...base, currentBlock: 4900 + N, lastUpdate: 4902 })).toMatchObject({ submit: false, why: 'too-soon', blocksLeft: 2 });
    expect(decide({ ...base, currentBlock: 4902 + N, lastUpdate: 4902 })).toEqual({ submit: true, why: 'interval-elapsed' });
    // After a restart with a stale or lost state block, the chain still anchors.
    expect(decide({ ...base, lastSubmitBlock: null, currentBlock: 4950, lastUpdate: 4902 })).toMatchObject({ submit: false, blocksLeft: N - 48 });
    // A reset chain: LastUpdate 0 (this uid never set weights here) submits at once, even at a block below the state's.
    expect(decide({ ...base, currentBlock: 10, lastUpdate: 0 })).toEqual({ submit: true, why: 'interval-elapsed' });
    // Unread (null): the state's block stands in.
    expect(decide({ ...base, currentBlock: 4900 + N, lastUpdate: null })).toEqual({ submit: true, why: 'interval-elapsed' });
  });

  it('the pre-gate only ever skips ticks the decision would refuse anyway', () => {
    for (let offset = 0; offset <= INTERVAL_MS + 60_000; offset += 30_000) {
      const now = T + offset;
      if (pregateSkip(now, T, N)) {
        expect(decide({ ...base, currentBlock: null, lastSubmitBlock: null, nowMs: now }).submit, `offset ${offset}`).toBe(false);
      }
    }
    // The threshold itself is 80% of the interval, and at it the pre-gate no longer skips.
    expect(pregateSkip(T + INTERVAL_MS * PREGATE_FRACTION - 1, T, N)).toBe(true);
    expect(pregateSkip(T + INTERVAL_MS * PREGATE_FRACTION, T, N)).toBe(false);
  });

  it('the pre-gate scales with a measured block time (fast dev chains) and still never skips a due tick', () => {
    const blockMs = 100;
    for (let offset = 0; offset <= N * blockMs + 1000; offset += 50) {
      if (pregateSkip(T + offset, T, N, blockMs)) {
        expect(decide({ ...base, currentBlock: null, lastSubmitBlock: null, nowMs: T + offset, blockMs }).submit).toBe(false);
      }
    }
    expect(pregateSkip(T + 0.8 * N * blockMs, T, N, blockMs)).toBe(false);
  });

  it('the interval clears the rate limit with margin and stays far inside the activity cutoff', () => {
    expect(DEFAULT_RESUBMIT_BLOCKS - RATE_LIMIT).toBeGreaterThanOrEqual(10);
    expect(DEFAULT_RESUBMIT_BLOCKS * 10).toBeLessThan(5000);
    expect(effectiveInterval(DEFAULT_RESUBMIT_BLOCKS, RATE_LIMIT)).toBe(DEFAULT_RESUBMIT_BLOCKS);
    expect(effectiveInterval(1, RATE_LIMIT)).toBe(RATE_LIMIT + RATE_LIMIT_MARGIN_BLOCKS);
    expect(effectiveInterval(N, Number.NaN)).toBe(N);
  });

  it('an inclusion lag of several blocks still clears the rate limit', () => {
    const readBlock = 5000;
    const inclusionLag = 5;
    const firstDue = readBlock + N;
    expect(decide({ ...base, currentBlock: firstDue, lastSubmitBlock: readBlock }).submit).toBe(true);
    expect(firstDue - (readBlock + inclusionLag)).toBeGreaterThanOrEqual(RATE_LIMIT);
    // Even at the floor the chain allows, the margin covers the same lag.
    const floor = effectiveInterval(1, RATE_LIMIT);
    expect(readBlock + floor - (readBlock + inclusionLag)).toBeGreaterThanOrEqual(RATE_LIMIT);
  });
});
