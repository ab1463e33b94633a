import { describe, expect, it } from 'vitest';
import { PrefixCache } from '../../doubles/fake-sglang/prefix-cache.ts';

describe('PrefixCache (radix tree)', () => {
  it('matches the longest cached prefix across split edges', () => {
    const c = new PrefixCache(1000);
    expect(c.match([1, 2, 3])).toBe(0);
    c.insert([1, 2, 3, 4, 5]);
    expect(c.match([1, 2, 3, 4, 5])).toBe(5);
    expect(c.match([1, 2, 3, 9])).toBe(3);
    c.insert([1, 2, 7, 8]);
    expect(c.match([1, 2, 7, 8, 9])).toBe(4);
    expect(c.match([1, 2, 3, 4, 5, 6])).toBe(5);
    expect(c.match([2, 3])).toBe(0);
    expect(c.cachedTokens).toBe(7);
  });

  it('starts over when the pool is full, and on flush', () => {
    const c = new PrefixCache(6);
    c.insert([1, 2, 3, 4]);
    c.insert([9, 8, 7, 6]);
    expect(c.match([1, 2, 3, 4])).toBe(0);
    c.insert([5, 5]);
    c.flush();
    expect(c.match([5, 5])).toBe(0);
  });
});
