// TEST DOUBLE (part of the simulated network): the rest of subnet 53, with no process behind it. Miners
// whose traffic each epoch scores beside the rig's, and validators with most of the stake that put each
// published epoch's weights on chain, as a live subnet's other validators do. With only the rig and one
// peer, the demo rig held half the miners' weight and all of the dividends, and Earnings showed a
// home miner thousands of τ a day; with these it holds a few % of the weight and under 1 % of the stake.
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import type { DevChainState, SeedNeuron } from '../dev-chain/state.ts';
import { SN53, TAO } from '../dev-chain/sn53-seed.ts';
import type { Weights } from '../provider.ts';
import type { WorkerTally } from './epoch-scorer.ts';

export const PEER_MINERS = 15;
export const PEER_VALIDATORS = 3;
/** Each peer validator's stake: the demo rig's 1000 τ is then 1000 / 151,000 of the validators' stake. */
export const PEER_VALIDATOR_STAKE_RAO = 50_000n * TAO;

export interface SimPeers {
  /** Hotkeys, in uid order once seeded. */
  miners: string[];
  validators: string[];
}

export async function simPeers(): Promise<SimPeers> {
  const { Keyring } = polkadot('@polkadot/keyring');
  await polkadot('@polkadot/util-crypto').cryptoWaitReady();
  const k = new Keyring({ type: 'sr25519', ss58Format: 42 });
  const at = (role: string, n: number) => Array.from({ length: n }, (_, i) => k.addFromUri(`//Engy//Sim${role}${i + 1}`).address);
  return { miners: at('Miner', PEER_MINERS), validators: at('Validator', PEER_VALIDATORS) };
}

/** The peers as dev-chain neurons: miners with nothing staked, validators with a permit and their stake. */
export function peerNeurons(peers: SimPeers, coldkey: string): SeedNeuron[] {
  return [...peers.miners.map((hotkey) => ({ hotkey, coldkey })), ...peers.validators.map((hotkey) => ({ hotkey, coldkey, validatorPermit: true, stakeRao: PEER_VALIDATOR_STAKE_RAO.toString() }))];
}

/**
 * What the gateway would have seen from each peer miner over an epoch window: a steady rate of its own
 * (30-89 tokens/s, about 60 on average, so together about 25 times what the demo's buyers send the rig),
 * moved up to 10 % by the epoch so the rig's share is not a constant.
 */
export function peerTallies(peers: SimPeers, windowMs: number, epochIndex: number): WorkerTally[] {
  const secs = Math.max(0, windowMs) / 1000;
  return peers.miners.map((hotkey, i) => {
    const rate = 30 + ((i * 23) % 60);
    const tokens = Math.round(rate * secs * (1 + (((epochIndex + i) % 5) - 2) * 0.05));
    const ok = Math.max(1, Math.round(tokens / 16));
    const completionTokens = Math.round((tokens * 7) / 16);
    return {
      hotkey,
      ok,
      failed: 0,
      promptTokens: tokens - completionTokens,
      completionTokens,
      verdicts: { pass: Math.ceil(ok / 2), cheat: 0, unproven: 0 },
      ttftP99Ms: 900,
    };
  });
}

/** Validators' set_weights, applied to the chain's state as the extrinsic would (uids read now; unknown hotkeys skipped). */
export function validatorsSetWeights(state: DevChainState, validators: readonly string[], weights: Weights): void {
  if (!state.subnet(SN53)) return;
  const byUid = weights.flatMap(([hk, w]): [number, number][] => {
    const uid = state.neuron(SN53, hk)?.uid;
    return uid === undefined ? [] : [[uid, w]];
  });
  for (const v of validators) {
    const me = state.neuron(SN53, v);
    if (!me) continue;
    // Each validator its own copy, as each extrinsic would store its own vector.
    me.weights = byUid.map(([uid, w]) => [uid, w]);
    me.lastUpdate = state.block;
  }
}
