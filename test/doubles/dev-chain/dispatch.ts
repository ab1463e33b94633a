// TEST DOUBLE. The SubtensorModule rules the dev chain enforces, in the order subtensor spec 424 checks them
// (CHAIN.md 3.1 / 3.2). Pool-level checks (1010 Custom error N) and dispatch errors (ExtrinsicFailed, by name)
// are kept apart because the client must handle both.
import type { DevChainState, DevSubnet } from './state.ts';

export interface SetWeightsArgs {
  netuid: number;
  dests: number[];
  weights: number[];
  versionKey: bigint;
}

export interface RegisterArgs {
  netuid: number;
  hotkey: string;
  /** Only for register_limit. */
  limitPrice?: bigint;
}

/** A call's effect: error name (module error) or the events to emit on success. */
export type DispatchResult = { ok: true; events: { pallet: string; name: string; fields: unknown[] }[] } | { ok: false; error: string };

/** SubtensorTransactionExtension custom codes (common/src/transaction_error.rs). */
export const POOL_STAKE_TOO_LOW = 1;
export const POOL_RATE_LIMIT = 6;
export const POOL_UID_NOT_FOUND = 19;

const isOwnerHotkey = (s: DevSubnet, hotkey: string) => s.ownerHotkey === hotkey;

function rateLimited(s: DevSubnet, lastUpdate: number, block: number): boolean {
  return lastUpdate !== 0 && BigInt(block - lastUpdate) < s.weightsRateLimit;
}

/** Pool pre-check for set_weights: the custom error code the node would answer 1010 with, or null. */
export function setWeightsPoolCheck(state: DevChainState, who: string, a: SetWeightsArgs): number | null {
  const s = state.subnet(a.netuid);
  if (!s) return null;
  const neuron = s.neurons.find((n) => n.hotkey === who);
  if (!neuron) return POOL_UID_NOT_FOUND;
  if (!isOwnerHotkey(s, who) && neuron.stakeRao < state.stakeThreshold) return POOL_STAKE_TOO_LOW;
  if (!s.commitRevealEnabled && rateLimited(s, neuron.lastUpdate, state.block)) return POOL_RATE_LIMIT;
  return null;
}

function maxUpscale(values: number[]): number[] {
  const max = Math.max(0, ...values);
  if (max === 0) return values.map(() => 0);
  return values.map((v) => Number((BigInt(v) * 65535n) / BigInt(max)));
}

/** `reveal`: the chain applying a revealed commit (no commit-reveal or rate-limit check; LastUpdate moved at commit). */
export function applySetWeights(state: DevChainState, who: string, a: SetWeightsArgs, opts: { reveal?: boolean } = {}): DispatchResult {
  const fail = (error: string): DispatchResult => ({ ok: false, error });
  const s = state.subnet(a.netuid);
  if (s?.commitRevealEnabled && !opts.reveal) return fail('CommitRevealEnabled');
  if (a.netuid === 0) return fail('CanNotSetRootNetworkWeights');
  if (a.dests.length !== a.weights.length) return fail('WeightVecNotEqualSize');
  if (!s) return fail('MechanismDoesNotExist');
  if (a.dests.length > s.neurons.length) return fail('UidsLengthExceedUidsInSubNet');
  const neuron = s.neurons.find((n) => n.hotkey === who);
  if (!neuron) return fail('HotKeyNotRegisteredInSubNet');
  const owner = isOwnerHotkey(s, who);
  if (!owner && neuron.stakeRao < state.stakeThreshold) return fail('NotEnoughStakeToSetWeights');
  if (s.weightsVersionKey !== 0n && a.versionKey < s.weightsVersionKey) return fail('IncorrectWeightVersionKey');
  if (!opts.reveal && rateLimited(s, neuron.lastUpdate, state.block)) return fail('SettingWeightsTooFast');
  const selfWeight = a.dests.length === 1 && a.dests[0] === neuron.uid;
  if (!neuron.validatorPermit && !owner && !selfWeight) return fail('NeuronNoValidatorPermit');
  if (new Set(a.dests).size !== a.dests.length) return fail('DuplicateUids');
  if (a.dests.some((u) => u >= s.neurons.length)) return fail('UidVecContainInvalidOne');
  if (!selfWeight && a.dests.length < Math.min(s.neurons.length, s.minAllowedWeights)) return fail('WeightVecLengthIsLow');
  const values = maxUpscale(a.weights);
  const sum = values.reduce((x, y) => x + y, 0);
  if (s.maxWeightsLimit !== 65535 && sum > 0 && Math.max(...values) / sum > s.maxWeightsLimit / 65535) {
    return fail('MaxWeightExceeded');
  }
  neuron.weights = a.dests.map((u, i) => [u, values[i] ?? 0]);
  if (!opts.reveal) neuron.lastUpdate = state.block;
  return { ok: true, events: [{ pallet: 'SubtensorModule', name: 'WeightsSet', fields: [a.netuid, neuron.uid] }] };
}

/** burned_register and register_limit: the coldkey pays Burn(netuid) for a uid for `hotkey`. */
export function applyRegister(state: DevChainState, coldkey: string, a: RegisterArgs): DispatchResult {
  const fail = (error: string): DispatchResult => ({ ok: false, error });
  if (a.netuid === 0) return fail('RegistrationNotPermittedOnRootSubnet');
  const s = state.subnet(a.netuid);
  if (!s) return fail('SubnetNotExists');
  if (!s.registrationAllowed) return fail('SubNetRegistrationDisabled');
  if (s.neurons.some((n) => n.hotkey === a.hotkey)) return fail('HotKeyAlreadyRegisteredInSubNet');
  if (a.limitPrice !== undefined && s.burnRao > a.limitPrice) return fail('RegistrationPriceLimitExceeded');
  const account = state.account(coldkey);
  if (account.free < s.burnRao) return fail('NotEnoughBalanceToStake');
  const owner = state.owners.get(a.hotkey);
  if (owner !== undefined && owner !== coldkey) return fail('NonAssociatedColdKey');
  if (s.neurons.length >= s.maxAllowedUids) return fail('NoNeuronIdAvailable');
  account.free -= s.burnRao;
  // The burn is swapped into the pool (its alpha is burned): the TAO reserve grows by the cost.
  s.subnetTaoRao += s.burnRao;
  const neuron = state.addNeuron(a.netuid, { hotkey: a.hotkey, coldkey });
  return {
    ok: true,
    events: [{ pallet: 'SubtensorModule', name: 'NeuronRegistered', fields: [a.netuid, neuron.uid, a.hotkey] }],
  };
}
