import { describe, expect, it } from 'vitest';
import { decide, effectiveInterval, minutesText, pregateSkip } from '../../../electron/engine/validator/schedule.ts';

const base = { epochIndex: 5, lastApplied: 5, currentBlock: 1000, lastSubmitBlock: 900, nowMs: 0, lastSubmitMs: 0, intervalBlocks: 120 };

describe('schedule', () => {
  it('submits a new epoch at once, whatever the interval', () => {
    expect(decide({ ...base, epochIndex: 6, currentBlock: 901 }).submit).toBe(true);
    expect(decide({ ...base, lastApplied: null }).submit).toBe(true);
  });

  it('never submits an older epoch (replay guard)', () => {
    expect(decide({ ...base, epochIndex: 4, currentBlock: 100_000 })).toMatchObject({ submit: false, why: 'older-epoch' });
  });

  it('resubmits the same epoch every interval by block number', () => {
    expect(decide({ ...base, currentBlock: 1019 })).toMatchObject({ submit: false, blocksLeft: 1 });
    expect(decide({ ...base, currentBlock: 1020 }).submit).toBe(true);
  });

  it('falls back to the wall clock (interval x 12 s) without a block number', () => {
    const min = 60_000;
    expect(decide({ ...base, currentBlock: null, nowMs: 23 * min, lastSubmitMs: 0 }).submit).toBe(false);
    expect(decide({ ...base, currentBlock: null, nowMs: 24 * min, lastSubmitMs: 0 }).submit).toBe(true);
    expect(decide({ ...base, currentBlock: null, lastSubmitMs: null }).submit).toBe(true);
    // A clock that jumped backwards resolves toward submitting.
    expect(decide({ ...base, currentBlock: null, nowMs: 0, lastSubmitMs: 5 * min }).submit).toBe(true);
  });

  it('pre-gates below 80% of the interval only', () => {
    const interval = 120 * 12_000;
    expect(pregateSkip(0.79 * interval, 0, 120)).toBe(true);
    expect(pregateSkip(0.8 * interval, 0, 120)).toBe(false);
    expect(pregateSkip(10, null, 120)).toBe(false);
    expect(pregateSkip(-10, 0, 120)).toBe(false);
  });

  it('never goes below the chain rate limit plus the margin', () => {
    expect(effectiveInterval(120, 100)).toBe(120);
    expect(effectiveInterval(50, 100)).toBe(120);
    expect(effectiveInterval(300, 100)).toBe(300);
    expect(effectiveInterval(120, 150)).toBe(170);
    expect(effectiveInterval(120, null)).toBe(120);
  });

  it('says a wait in seconds on a fast chain and in minutes on finney', () => {
    expect(minutesText(22 * 250)).toBe('~6 s');
    expect(minutesText(-5)).toBe('~0 s');
    expect(minutesText(89_000)).toBe('~89 s');
    expect(minutesText(90_000)).toBe('~2 min');
    expect(minutesText(120 * 12_000)).toBe('~24 min');
  });
});
