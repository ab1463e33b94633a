// The chain's block time as both the validator and earnings read it: measured, or why not, never a throw.
import { describe, expect, it } from 'vitest';
import { readBlockTimeMs } from '../../../electron/engine/chain/block-time.ts';

describe('readBlockTimeMs', () => {
  it('takes a measured positive time and refuses anything else, saying why only when the chain failed', async () => {
    expect(await readBlockTimeMs({ blockTimeMs: async () => 250 })).toEqual({ ms: 250 });
    expect(await readBlockTimeMs({})).toEqual({ ms: null, error: null });
    for (const bad of [null, 0, -12_000, Number.NaN, Number.POSITIVE_INFINITY, '12000' as unknown as number]) {
      expect(await readBlockTimeMs({ blockTimeMs: async () => bad }), String(bad)).toEqual({ ms: null, error: null });
    }
    expect(await readBlockTimeMs({ blockTimeMs: async () => Promise.reject(new Error('connection dropped')) })).toEqual({ ms: null, error: 'connection dropped' });
    expect(
      await readBlockTimeMs({
        blockTimeMs: () => {
          throw new TypeError('not a function of this runtime');
        },
      }),
    ).toEqual({ ms: null, error: 'not a function of this runtime' });
  });
});
