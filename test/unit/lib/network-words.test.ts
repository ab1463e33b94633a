// "fetch failed" and raw errno codes never reach the user: the cause, dug out of the error chain, in words.
import { describe, expect, it } from 'vitest';
import { describeChainError, describeNetworkError } from '../../../electron/engine/lib/network-words.ts';
import { AppFailure } from '../../../shared/errors.ts';

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

  it("the chain client's refusal gives only its causes, so a sentence naming the URL says it once", () => {
    const url = 'wss://entrypoint-finney.opentensor.ai:443';
    const refusal = new AppFailure(
      'chain-unreachable',
      `Could not reach the chain (${url}: nothing is listening at that address). Check the internet connection.`,
      'nothing is listening at that address',
    );
    const sentence = `Cannot reach the chain at ${url}: ${describeChainError(refusal)}.`;
    expect(sentence).toBe(`Cannot reach the chain at ${url}: nothing is listening at that address.`);
    expect(describeChainError(new AppFailure('chain-unreachable', 'no detail here'))).toBe('no detail here');
    expect(describeChainError(fetchFailed('ECONNREFUSED'))).toBe('nothing is listening at that address');
  });
});
