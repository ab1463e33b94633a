import { describe, expect, it } from 'vitest';
import { normalizeWeights } from '../../../electron/engine/chain/normalize-weights.ts';

const uids = new Map([
  ['hkA', 5],
  ['hkB', 2],
  ['hkC', 9],
  ['hkD', 0],
]);

describe('normalizeWeights', () => {
  it('sorts by uid and rescales onto 65535 exactly', () => {
    const r = normalizeWeights(
      [
        ['hkA', 1],
        ['hkB', 1],
        ['hkC', 1],
      ],
      uids,
    );
    expect(r.uids).toEqual([2, 5, 9]);
    // floor(65535/3) = 21845 each, sum 65535: no remainder.
    expect(r.values).toEqual([21845, 21845, 21845]);
    expect(r.dropped).toEqual([]);
    expect(r.droppedShare).toBe(0);
  });

  it('gives the rounding remainder to the largest, ties to the lowest uid', () => {
    const r = normalizeWeights(
      [
        ['hkC', 3],
        ['hkA', 3],
        ['hkB', 1],
      ],
      uids,
    );
    // floor(3*65535/7)=28086, floor(65535/7)=9362 -> sum 65534, gap 1 goes to uid 5 (lowest of the tied largest).
    expect(r.uids).toEqual([2, 5, 9]);
    expect(r.values).toEqual([9362, 28087, 28086]);
    expect(r.values.reduce((a, b) => a + b, 0)).toBe(65535);
  });

  it('drops unregistered hotkeys and reports their share', () => {
    const r = normalizeWeights(
      [
        ['hkA', 30000],
        ['ghost', 10000],
        ['hkD', 10000],
      ],
      uids,
    );
    expect(r.uids).toEqual([0, 5]);
    expect(r.dropped).toEqual(['ghost']);
    expect(r.droppedShare).toBeCloseTo(0.2, 12);
    // floor(16383.75)=16383, floor(49151.25)=49151, the gap of 1 goes to the largest.
    expect(r.values).toEqual([16383, 49152]);
  });

  it('keeps an all-zero vector all-zero', () => {
    const r = normalizeWeights(
      [
        ['hkA', 0],
        ['hkB', 0],
      ],
      uids,
    );
    expect(r.uids).toEqual([2, 5]);
    expect(r.values).toEqual([0, 0]);
    expect(r.droppedShare).toBe(0);
  });

  it('returns empty vectors when nobody is registered', () => {
    const r = normalizeWeights([['ghost', 7]], uids);
    expect(r).toEqual({ uids: [], values: [], dropped: ['ghost'], droppedShare: 1 });
  });

  it('a single recipient gets all of 65535', () => {
    expect(normalizeWeights([['hkC', 12]], uids).values).toEqual([65535]);
  });

  it('sums a hotkey listed twice', () => {
    const r = normalizeWeights(
      [
        ['hkA', 1],
        ['hkB', 2],
        ['hkA', 1],
      ],
      uids,
    );
    expect(r.values).toEqual([32768, 32767]);
  });

  it('refuses negative or non-finite weights', () => {
    expect(() => normalizeWeights([['hkA', -1]], uids)).toThrow(RangeError);
    expect(() => normalizeWeights([['hkA', Number.NaN]], uids)).toThrow(RangeError);
  });
});
