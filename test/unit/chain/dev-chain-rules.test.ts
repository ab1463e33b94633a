// The dev chain double must enforce subtensor's rules faithfully, or the client tests prove nothing.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RuntimeVersion } from '@polkadot/types/interfaces';
import { DevChain } from '../../doubles/dev-chain/chain.ts';
import { applyRegister, applySetWeights, setWeightsPoolCheck } from '../../doubles/dev-chain/dispatch.ts';
import { loadDevRuntime } from '../../doubles/dev-chain/runtime.ts';
import { devKeys, sn53Seed, SN53, TAO, type DevKeys } from '../../doubles/dev-chain/sn53-seed.ts';
import { DevChainState } from '../../doubles/dev-chain/state.ts';

let keys: DevKeys;
beforeAll(async () => {
  keys = await devKeys();
});

const fresh = () => {
  const s = new DevChainState(sn53Seed(keys, { weightsRateLimit: 100 }));
  s.block = 1000;
  return s;
};
const sw = (dests: number[], weights: number[], versionKey = 0n) => ({ netuid: SN53, dests, weights, versionKey });

describe('dev chain set_weights rules', () => {
  it('rate limit: refused under the limit, allowed at exactly the limit (chain uses >=)', () => {
    const s = fresh();
    const v = keys.validator.address;
    expect(applySetWeights(s, v, sw([3], [1]))).toMatchObject({ ok: true });
    expect(s.lastUpdateOf(SN53, 1)).toBe(1000);
    s.block = 1099;
    expect(setWeightsPoolCheck(s, v, sw([3], [1]))).toBe(6);
    expect(applySetWeights(s, v, sw([3], [1]))).toEqual({ ok: false, error: 'SettingWeightsTooFast' });
    s.block = 1100;
    expect(setWeightsPoolCheck(s, v, sw([3], [1]))).toBeNull();
    expect(applySetWeights(s, v, sw([3], [1]))).toMatchObject({ ok: true });
  });

  it('permit: refused without one, except the owner hotkey and a single self-weight', () => {
    const s = fresh();
    expect(applySetWeights(s, keys.noPermit.address, sw([3, 4], [1, 1]))).toEqual({ ok: false, error: 'NeuronNoValidatorPermit' });
    expect(applySetWeights(s, keys.noPermit.address, sw([2], [1]))).toMatchObject({ ok: true });
    expect(applySetWeights(s, keys.owner.address, sw([3, 4], [1, 1]))).toMatchObject({ ok: true });
  });

  it('checks version key, duplicates, unknown uids, lengths and stake', () => {
    const s = fresh();
    const v = keys.validator.address;
    s.subnet(SN53)!.weightsVersionKey = 5n;
    expect(applySetWeights(s, v, sw([3], [1], 4n))).toEqual({ ok: false, error: 'IncorrectWeightVersionKey' });
    s.subnet(SN53)!.weightsVersionKey = 0n;
    expect(applySetWeights(s, v, sw([3, 3], [1, 1]))).toEqual({ ok: false, error: 'DuplicateUids' });
    expect(applySetWeights(s, v, sw([3, 9], [1, 1]))).toEqual({ ok: false, error: 'UidVecContainInvalidOne' });
    expect(applySetWeights(s, v, sw([3, 4], [1]))).toEqual({ ok: false, error: 'WeightVecNotEqualSize' });
    s.subnet(SN53)!.minAllowedWeights = 3;
    expect(applySetWeights(s, v, sw([3, 4], [1, 1]))).toEqual({ ok: false, error: 'WeightVecLengthIsLow' });
    s.stakeThreshold = 2000n * TAO;
    expect(setWeightsPoolCheck(s, v, sw([3, 4], [1, 1]))).toBe(1);
    expect(applySetWeights(s, v, sw([3, 4, 0], [1, 1, 1]))).toEqual({ ok: false, error: 'NotEnoughStakeToSetWeights' });
    expect(setWeightsPoolCheck(s, keys.stranger.address, sw([3], [1]))).toBe(19);
    expect(applySetWeights(s, keys.stranger.address, sw([3], [1]))).toEqual({ ok: false, error: 'HotKeyNotRegisteredInSubNet' });
  });

  it('refuses plain weights when commit-reveal is on', () => {
    const s = fresh();
    expect(applySetWeights(s, keys.validator.address, { netuid: 7, dests: [0], weights: [1], versionKey: 0n })).toEqual({ ok: false, error: 'CommitRevealEnabled' });
  });

  it('stores weights max-upscaled, like the chain', () => {
    const s = fresh();
    applySetWeights(s, keys.validator.address, sw([0, 3], [1, 2]));
    expect(s.weightsOf(SN53, 1)).toEqual([
      [0, 32767],
      [3, 65535],
    ]);
  });
});

describe('dev chain registration rules', () => {
  it('registers, then refuses the same hotkey, a poor coldkey, a foreign hotkey and a full subnet', () => {
    const s = fresh();
    const cold = keys.coldkey.address;
    expect(applyRegister(s, cold, { netuid: SN53, hotkey: keys.stranger.address })).toMatchObject({ ok: true });
    expect(s.freeBalance(cold)).toBe(9n * TAO);
    expect(s.neuron(SN53, keys.stranger.address)?.uid).toBe(5);
    expect(applyRegister(s, cold, { netuid: SN53, hotkey: keys.stranger.address })).toEqual({ ok: false, error: 'HotKeyAlreadyRegisteredInSubNet' });
    expect(applyRegister(s, keys.poorColdkey.address, { netuid: 7, hotkey: keys.owner.address })).toEqual({ ok: false, error: 'NotEnoughBalanceToStake' });
    s.setBalance(keys.poorColdkey.address, 5n * TAO);
    expect(applyRegister(s, keys.poorColdkey.address, { netuid: 7, hotkey: keys.owner.address })).toEqual({ ok: false, error: 'NonAssociatedColdKey' });
    expect(applyRegister(s, cold, { netuid: SN53, hotkey: keys.poorColdkey.address, limitPrice: TAO - 1n })).toEqual({ ok: false, error: 'RegistrationPriceLimitExceeded' });
    s.subnet(SN53)!.maxAllowedUids = 6;
    expect(applyRegister(s, cold, { netuid: SN53, hotkey: keys.poorColdkey.address })).toEqual({ ok: false, error: 'NoNeuronIdAvailable' });
    expect(applyRegister(s, cold, { netuid: 99, hotkey: keys.poorColdkey.address })).toEqual({ ok: false, error: 'SubnetNotExists' });
  });
});

describe('dev chain pool', () => {
  const signed = (chain: DevChain, nonce: number, tamper = false) => {
    const { registry } = chain.rt;
    const ext = registry.createType('Extrinsic', chain.rt.decorated.tx['subtensorModule']?.['setWeights']?.(SN53, [3], [1], 0));
    ext.sign(keys.validator, {
      blockHash: chain.genesisHash,
      genesisHash: chain.genesisHash,
      nonce,
      runtimeVersion: registry.createType('RuntimeVersion', chain.rt.version) as RuntimeVersion,
    });
    const hex = ext.toHex();
    // Flip one byte of the signature (it sits after the signer's 32-byte key and the variant byte).
    return tamper ? hex.slice(0, 80) + (hex.slice(80, 82) === '00' ? '01' : '00') + hex.slice(82) : hex;
  };

  it('accepts a good signature with the next nonce, refuses bad signatures and wrong nonces', () => {
    const chain = new DevChain(loadDevRuntime(), new DevChainState(sn53Seed(keys)));
    expect(chain.submit(signed(chain, 0, true))).toMatchObject({ ok: false, error: { code: 1010, data: 'Transaction has a bad signature' } });
    expect(chain.submit(signed(chain, 1))).toMatchObject({ ok: false, error: { data: 'Transaction will be valid in the future' } });
    expect(chain.submit(signed(chain, 0))).toMatchObject({ ok: true });
    const block = chain.produceBlock();
    expect(block.extrinsics).toHaveLength(1);
    expect(chain.state.applied.at(-1)).toMatchObject({ method: 'set_weights', error: null, block: block.number });
    expect(chain.state.account(keys.validator.address).nonce).toBe(1);
    expect(chain.submit(signed(chain, 0))).toMatchObject({ ok: false, error: { data: 'Transaction is outdated' } });
  });
});

describe('dev chain toy epoch', () => {
  /** A subnet with the toy epoch every 10 blocks, one block made, and the validator's weights on uids 3 and 4 (1 : 3). */
  const toyChain = (wallClock: boolean) => {
    const s = new DevChainState(sn53Seed(keys));
    s.wallClock = wallClock;
    const subnet = s.subnet(SN53)!;
    subnet.simulateEpochs = true;
    subnet.tempo = 10;
    const chain = new DevChain(loadDevRuntime(), s);
    chain.produceBlock();
    expect(applySetWeights(s, keys.validator.address, sw([3, 4], [1, 3]))).toMatchObject({ ok: true });
    /** Blocks until the next epoch, the clock moved `msPerBlock` before each (fake timers: the test owns Date). */
    const epochAfter = (msPerBlock = 0): void => {
      const start = subnet.lastEpochBlock;
      while (subnet.lastEpochBlock === start) {
        if (msPerBlock > 0) vi.setSystemTime(Date.now() + msPerBlock);
        chain.produceBlock();
      }
    };
    return { subnet, epochAfter };
  };

  afterEach(() => {
    vi.useRealTimers();
  });

  it('moves incentive and emission to where the active validators put their weight', () => {
    const { subnet, epochAfter } = toyChain(false);
    epochAfter();
    expect(subnet.neurons.map((n) => n.incentive)).toEqual([0, 0, 0, 16383, 49151]);
    expect(subnet.neurons[1]?.dividends).toBe(65535);
    // 10 blocks * 1 alpha * 41% to miners, 1/4 of it to uid 3.
    expect(subnet.neurons[3]?.emissionRao).toBe((4_100_000_000n * 16383n) / 65535n);
    expect(subnet.neurons[2]?.emissionRao).toBe(0n);
  });

  it("on the wall clock (a fast demo chain), emits finney's α per second of that clock, not per block", () => {
    // The chain reads Date.now() per block; the test owns it.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    const { subnet, epochAfter } = toyChain(true);
    // The first epoch counts from the first block; the second is a whole tempo of 1 s blocks: 10 s of
    // finney, 10/12 of a block's 1 α, 41 % to miners, 1/4 of that to uid 3.
    epochAfter(1000);
    epochAfter(1000);
    expect(subnet.neurons[3]?.emissionRao).toBe((((1_000_000_000n * 10_000n * 41n) / 1_200_000n) * 16383n) / 65535n);
    // 250 ms blocks: a quarter of that per epoch, so the same α per second of the clock.
    epochAfter(250);
    expect(subnet.neurons[3]?.emissionRao).toBe((((1_000_000_000n * 2_500n * 41n) / 1_200_000n) * 16383n) / 65535n);
  });
});
