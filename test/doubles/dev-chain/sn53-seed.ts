// TEST DOUBLE seed: subnet 53 with an owner, a validator (permit + stake), a validator without a permit and
// two miners, plus funded coldkeys. Keys come from well-known dev derivations (//Alice...), never real wallets.
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import type { KeyringPair } from '@polkadot/keyring/types';
import type { DevChainSeed } from './state.ts';

const { Keyring } = polkadot('@polkadot/keyring');
const { cryptoWaitReady } = polkadot('@polkadot/util-crypto');

export interface DevKeys {
  /** SubnetOwnerHotkey: the burn recipient. uid 0. */
  owner: KeyringPair;
  /** Registered, validator permit, 1000 alpha staked. uid 1. */
  validator: KeyringPair;
  /** Registered, no permit. uid 2. */
  noPermit: KeyringPair;
  /** Miners, uids 3 and 4. */
  miners: [KeyringPair, KeyringPair];
  /** Not registered anywhere. */
  stranger: KeyringPair;
  /** Coldkey funded with 10 TAO (the validator's and miners' coldkey). */
  coldkey: KeyringPair;
  /** Coldkey with 0.01 TAO: below the 1 TAO burn. */
  poorColdkey: KeyringPair;
}

export async function devKeys(): Promise<DevKeys> {
  await cryptoWaitReady();
  const k = new Keyring({ type: 'sr25519', ss58Format: 42 });
  const key = (uri: string) => k.addFromUri(uri);
  return {
    owner: key('//Engy//Owner'),
    validator: key('//Engy//Validator'),
    noPermit: key('//Engy//NoPermit'),
    miners: [key('//Engy//Miner1'), key('//Engy//Miner2')],
    stranger: key('//Engy//Stranger'),
    coldkey: key('//Engy//Coldkey'),
    poorColdkey: key('//Engy//PoorColdkey'),
  };
}

export const SN53 = 53;
export const TAO = 1_000_000_000n;

export function sn53Seed(keys: DevKeys, overrides: { commitRevealEnabled?: boolean; weightsRateLimit?: number } = {}): DevChainSeed {
  const cold = keys.coldkey.address;
  return {
    balances: { [cold]: (10n * TAO).toString(), [keys.poorColdkey.address]: (TAO / 100n).toString() },
    subnets: [
      {
        netuid: SN53,
        tempo: 360,
        weightsRateLimit: overrides.weightsRateLimit ?? 100,
        commitRevealEnabled: overrides.commitRevealEnabled ?? false,
        burnRao: TAO.toString(),
        ownerHotkey: keys.owner.address,
        ownerColdkey: cold,
        subnetTaoRao: (20_000n * TAO).toString(),
        subnetAlphaInRao: (1_000_000n * TAO).toString(),
        neurons: [
          { hotkey: keys.owner.address, coldkey: cold },
          { hotkey: keys.validator.address, coldkey: cold, validatorPermit: true, stakeRao: (1000n * TAO).toString(), dividends: 65535 },
          { hotkey: keys.noPermit.address, coldkey: cold, stakeRao: (5n * TAO).toString() },
          { hotkey: keys.miners[0].address, coldkey: cold, incentive: 49151, emissionRao: (2n * TAO).toString() },
          { hotkey: keys.miners[1].address, coldkey: cold, incentive: 16384, emissionRao: (TAO / 2n).toString() },
        ],
      },
      // A second subnet with commit-reveal on, as finney defaults it.
      { netuid: 7, commitRevealEnabled: true, neurons: [{ hotkey: keys.validator.address, coldkey: cold, validatorPermit: true }] },
    ],
  };
}
