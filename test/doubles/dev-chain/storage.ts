// TEST DOUBLE. Projects the in-memory dev chain state onto real storage keys and SCALE values,
// so reads go through the same keys/hashers/types as on finney. One snapshot per block.
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import type { DevRuntime } from './runtime.ts';
import type { DevChainState } from './state.ts';

const { u8aToHex } = polkadot('@polkadot/util');

export type StorageSnapshot = Map<string, string>;

/** The storage of one block: every item the double models, plus that block's System.Events bytes. */
export function projectStorage(rt: DevRuntime, state: DevChainState, events: Uint8Array): StorageSnapshot {
  const out: StorageSnapshot = new Map();
  const put = (section: string, method: string, args: unknown[], value: unknown) => {
    out.set(rt.storageKey(section, method, ...args), u8aToHex(rt.encodeStorageValue(section, method, value)));
  };
  const sub = (method: string, args: unknown[], value: unknown) => put('subtensorModule', method, args, value);

  put('system', 'number', [], state.block);
  put('timestamp', 'now', [], state.timestampMs);
  out.set(rt.storageKey('system', 'events'), u8aToHex(events));
  for (const [address, a] of state.accounts) {
    put('system', 'account', [address], { nonce: a.nonce, providers: 1, data: { free: a.free } });
  }
  sub('stakeThreshold', [], state.stakeThreshold);
  state.commitReveal.project(state, put);
  for (const [hotkey, coldkey] of state.owners) sub('owner', [hotkey], coldkey);

  for (const s of state.subnets.values()) {
    const n = s.netuid;
    sub('networksAdded', [n], true);
    sub('subnetworkN', [n], s.neurons.length);
    sub('tempo', [n], s.tempo);
    sub('weightsSetRateLimit', [n], s.weightsRateLimit);
    sub('immunityPeriod', [n], s.immunityPeriod);
    sub('activityCutoffFactorMilli', [n], s.activityCutoffFactorMilli);
    sub('commitRevealWeightsEnabled', [n], s.commitRevealEnabled);
    sub('weightsVersionKey', [n], s.weightsVersionKey);
    sub('burn', [n], s.burnRao);
    if (s.ownerHotkey) sub('subnetOwnerHotkey', [n], s.ownerHotkey);
    if (s.ownerColdkey) sub('subnetOwner', [n], s.ownerColdkey);
    sub('networkRegistrationAllowed', [n], s.registrationAllowed);
    sub('maxAllowedUids', [n], s.maxAllowedUids);
    sub('minAllowedWeights', [n], s.minAllowedWeights);
    sub('maxWeightsLimit', [n], s.maxWeightsLimit);
    sub('subnetTAO', [n], s.subnetTaoRao);
    sub('subnetAlphaIn', [n], s.subnetAlphaInRao);
    sub('lastEpochBlock', [n], s.lastEpochBlock);
    // Mechanism 0: NetUidStorageIndex == netuid.
    sub(
      'validatorPermit',
      [n],
      s.neurons.map((x) => x.validatorPermit),
    );
    sub(
      'lastUpdate',
      [n],
      s.neurons.map((x) => x.lastUpdate),
    );
    sub(
      'incentive',
      [n],
      s.neurons.map((x) => x.incentive),
    );
    sub(
      'dividends',
      [n],
      s.neurons.map((x) => x.dividends),
    );
    sub(
      'emission',
      [n],
      s.neurons.map((x) => x.emissionRao),
    );
    for (const x of s.neurons) {
      sub('keys', [n, x.uid], x.hotkey);
      sub('uids', [n, x.hotkey], x.uid);
      sub('blockAtRegistration', [n, x.uid], x.blockAtRegistration);
      sub('totalHotkeyAlpha', [x.hotkey, n], x.stakeRao);
      if (x.weights.length > 0) sub('weights', [n, x.uid], x.weights);
    }
  }
  return out;
}
