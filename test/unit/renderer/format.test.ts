import { describe, expect, it } from 'vitest';
import { ago, gib, kTokens, num } from '../../../renderer/src/features/common/format.ts';

describe('renderer formatters', () => {
  it('gib: MiB to GiB with one decimal and the unit', () => {
    expect(gib(0)).toBe('0.0 GiB');
    expect(gib(24_564)).toBe('24.0 GiB');
    expect(gib(81_920)).toBe('80.0 GiB');
    expect(gib(512)).toBe('0.5 GiB');
  });

  it('num: thousands separators, independent of the browser locale', () => {
    expect(num(0)).toBe('0');
    expect(num(1_234_567)).toBe('1,234,567');
    expect(num(-42_000)).toBe('-42,000');
    expect(num(0.5)).toBe('0.5');
  });

  it('kTokens: thousands below a million, two decimals of millions above', () => {
    expect(kTokens(0)).toBe('0k tokens');
    expect(kTokens(1_499)).toBe('1k tokens');
    expect(kTokens(1_500)).toBe('2k tokens');
    expect(kTokens(999_999)).toBe('1000k tokens');
    expect(kTokens(1_000_000)).toBe('1.00M tokens');
    expect(kTokens(12_345_678)).toBe('12.35M tokens');
  });

  it('ago: seconds, minutes, hours elapsed, never negative', () => {
    const now = 1_700_000_000_000;
    expect(ago(now, now)).toBe('0 s ago');
    expect(ago(now + 5_000, now)).toBe('0 s ago'); // a clock a little ahead of ours
    expect(ago(now - 59_400, now)).toBe('59 s ago');
    expect(ago(now - 60_000, now)).toBe('1 min ago');
    expect(ago(now - 3_599_000, now)).toBe('59 min ago');
    expect(ago(now - 3_600_000, now)).toBe('1 h ago');
    expect(ago(now - 49 * 3_600_000, now)).toBe('49 h ago');
  });
});
