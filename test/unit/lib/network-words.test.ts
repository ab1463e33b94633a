// "fetch failed" and raw errno codes never reach the user: the cause, dug out of the error chain, in words.
import { describe, expect, it } from 'vitest';
import { describeNetworkError } from '../../../electron/engine/lib/network-words.ts';

const fetchFailed = (code: string) => new TypeError('fetch failed', { cause: Object.assign(new Error(`getaddrinfo ${code} api.engy.ai`), { code }) });

describe('network errors in words', () => {
  it('names the cause buried under "fetch failed"', () => {
    expect(describeNetworkError(fetchFailed('ENOTFOUND'))).toMatch(/offline/);
    expect(describeNetworkError(fetchFailed('ECONNREFUSED'))).toBe('nothing is listening at that address');
    expect(describeNetworkError(new Error('wrapper', { cause: fetchFailed('EAI_AGAIN') }))).toMatch(/DNS/);
  });

  it('never answers with the raw words', () => {
    for (const e of [fetchFailed('ENOTFOUND'), new TypeError('fetch failed'), fetchFailed('EWEIRD')]) {
      const s = describeNetworkError(e);
      expect(s).not.toMatch(/fetch failed|ENOTFOUND/);
    }
  });

  it('handles timeouts, HTTP statuses, odd values and cyclic causes', () => {
    expect(describeNetworkError(new DOMException('x', 'TimeoutError'))).toBe('it did not answer in time');
    expect(describeNetworkError(new Error('HTTP 503'))).toBe('it answered HTTP 503');
    expect(describeNetworkError(null)).toBe('null');
    expect(describeNetworkError({ code: { toString: 1 } })).toBe('[object Object]');
    const cyclic: { cause?: unknown } & Error = new Error('loop');
    cyclic.cause = cyclic;
    expect(describeNetworkError(cyclic)).toBe('loop');
    expect(describeNetworkError(new Error('x'.repeat(5000) + '\nsecond line')).length).toBeLessThanOrEqual(160);
  });
});
