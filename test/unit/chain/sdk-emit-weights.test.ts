// Issue 32 item 8: the weight values in the panel's extrinsic are what the bittensor SDK sends for
// the same vector (`convert_weights_and_uids_for_emit`: divide by the largest, times 65535, Python's
// round, zeros dropped), so the call data is byte-equal to the reference validator's.
// The fixture below was computed with CPython from that arithmetic (float division, round()) on the
// vector engy's own rescale produces; the call bytes follow CHAIN.md 3 (pallet 7, call 0, SCALE).
import { describe, expect, it } from 'vitest';
import { normalizeWeights, roundHalfEven, sdkEmitWeights } from '../../../electron/engine/chain/normalize-weights.ts';
import { loadDevRuntime } from '../../doubles/dev-chain/runtime.ts';

/** A payload with a zero and a weight too small to survive the u16 scale, and what the SDK sends for it. */
const SDK_FIXTURE = {
  payload: [
    ['hk0', 0.41],
    ['hk3', 0.27],
    ['hk4', 0],
    ['hk7', 0.19],
    ['hk9', 0.13],
    ['hk12', 0.0000001],
  ] as [string, number][],
  uidOf: new Map([
    ['hk0', 0],
    ['hk3', 3],
    ['hk4', 4],
    ['hk7', 7],
    ['hk9', 9],
    ['hk12', 12],
  ]),
  engyValues: [26871, 17694, 0, 12451, 8519, 0],
  sdkUids: [0, 3, 7, 9],
  sdkValues: [65535, 43153, 30366, 20777],
  callHex: '0x0700350010000003000700090010ffff91a89e7629510000000000000000',
};

describe('weights as the SDK emits them', () => {
  it('max-upscales, drops zeros with their uids, and matches the SDK-computed fixture byte for byte', () => {
    const n = normalizeWeights(SDK_FIXTURE.payload, SDK_FIXTURE.uidOf);
    expect(n.values).toEqual(SDK_FIXTURE.engyValues);
    const e = sdkEmitWeights(n.uids, n.values);
    expect(e).toEqual({ uids: SDK_FIXTURE.sdkUids, values: SDK_FIXTURE.sdkValues });
    const { decorated } = loadDevRuntime();
    const call = decorated.tx['subtensorModule']?.['setWeights']?.(53, e.uids, e.values, 0);
    expect(call?.toHex()).toBe(SDK_FIXTURE.callHex);
  });

  it("rounds exact halves as Python's round() does, and emits nothing for an all-zero vector", () => {
    // 65535 / 6 = 10922.5 exactly: Python gives 10922 where Math.round gives 10923.
    expect(sdkEmitWeights([0, 1], [1, 6])).toEqual({ uids: [0, 1], values: [10922, 65535] });
    expect(sdkEmitWeights([0, 1], [1, 2])).toEqual({ uids: [0, 1], values: [32768, 65535] });
    expect(sdkEmitWeights([5], [7])).toEqual({ uids: [5], values: [65535] });
    expect(sdkEmitWeights([1, 2], [0, 0])).toEqual({ uids: [], values: [] });
    expect(sdkEmitWeights([], [])).toEqual({ uids: [], values: [] });
    expect([0.5, 1.5, 2.5, 2.4999, 2.5001, 0].map(roundHalfEven)).toEqual([0, 2, 2, 2, 3, 0]);
  });

  it('the burn vector and a single recipient go as 65535', () => {
    expect(sdkEmitWeights([0], [65535])).toEqual({ uids: [0], values: [65535] });
  });
});
