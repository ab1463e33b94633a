// TEST DOUBLE. Commit-reveal v4 on the dev chain (CHAIN.md 3.4): commit_timelocked_(mechanism_)weights with
// subtensor's checks and error names, TimelockedWeightCommits keyed by the subnet's epoch index, and the reveal at
// the start of epoch commit_epoch + RevealPeriodEpochs by decrypting with a pulse the double holds (retried each
// block of that epoch while the pulse is missing; failures at reveal are silent, as on the chain).
//
// The beacon is the double's own: a BLS12-381 key pair made from a fixed test seed (never quicknet's, whose secret
// nobody has), published as Drand.BeaconConfig. Chain time (Timestamp.Now) advances 12 s per block from the
// moment the double starts, and the beacon's rounds follow chain time, so reveal rounds computed from the chain's
// schedule come due at the right block however fast the test produces blocks.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import { identityPoint, tlockDecrypt } from '../../../electron/engine/chain/tlock/ibe.ts';
import { decodeWeightsPayload } from '../../../electron/engine/chain/tlock/weights-payload.ts';
import type { DispatchResult } from './dispatch.ts';
import { applySetWeights } from './dispatch.ts';
import type { DevChainState } from './state.ts';
import { errorMessage } from '../../../shared/errors.ts';

const { u8aToHex } = polkadot('@polkadot/util');
const { blake2AsU8a, decodeAddress, encodeAddress } = polkadot('@polkadot/util-crypto');

export interface CommitArgs {
  netuid: number;
  mecid: number;
  commit: Uint8Array;
  revealRound: bigint;
  version: number;
}

export interface DevCommit {
  who: string;
  commitBlock: number;
  commit: Uint8Array;
  revealRound: number;
  epoch: number;
}

/** What happened to a commit at its reveal, for tests (the chain itself emits nothing on a failed reveal). */
export interface DevReveal {
  block: number;
  netuid: number;
  who: string;
  revealRound: number;
  ok: boolean;
  why: string;
}

export const MAX_UNREVEALED = 10;
export const POOL_INVALID_REVEAL_ROUND = 15;
/** Finney's block time: the nominal clock's pace, and what one block's toy emission stands for. */
export const NOMINAL_BLOCK_MS = 12_000;
const SEED = sha256(new TextEncoder().encode('engy dev-chain test beacon (a double, never a real drand key)'));

export class DevCommitReveal {
  /** CommitRevealWeightsVersion. */
  version = 4;
  readonly revealPeriodEpochs = new Map<number, number>();
  readonly epochIndex = new Map<number, number>();
  /** netuid -> epoch -> commits. */
  readonly commits = new Map<number, Map<number, DevCommit[]>>();
  readonly reveals: DevReveal[] = [];
  /** Rounds whose pulse the double withholds (to exercise a reveal that cannot happen). */
  readonly withheldRounds = new Set<number>();
  readonly timeOriginMs: number;
  readonly genesisS: number;
  readonly periodS = 3;
  readonly publicKey: Uint8Array;
  private readonly sk: Uint8Array;

  constructor(timeOriginMs = Math.floor(Date.now() / 1000) * 1000) {
    this.timeOriginMs = timeOriginMs;
    this.genesisS = timeOriginMs / 1000;
    const scalar = BigInt(`0x${Buffer.from(SEED).toString('hex')}`) % bls12_381.fields.Fr.ORDER;
    this.sk = new Uint8Array(Buffer.from(scalar.toString(16).padStart(64, '0'), 'hex'));
    this.publicKey = bls12_381.shortSignatures.getPublicKey(this.sk).toBytes(true);
  }

  nowMs(block: number): number {
    return this.timeOriginMs + block * NOMINAL_BLOCK_MS;
  }

  /** Drand.LastStoredRound at a block: the newest round whose time has come on chain time. */
  lastStoredRound(block: number): number {
    return Math.max(0, Math.floor((this.nowMs(block) / 1000 - this.genesisS) / this.periodS));
  }

  /** The signature of a round the double holds, or null when it is not out yet (or withheld). */
  pulse(round: number, block: number): Uint8Array | null {
    if (round < 1 || round > this.lastStoredRound(block) || this.withheldRounds.has(round)) return null;
    return bls12_381.shortSignatures.sign(identityPoint(round), this.sk).toBytes(true);
  }

  revealPeriod(netuid: number): number {
    return this.revealPeriodEpochs.get(netuid) ?? 1;
  }

  epoch(netuid: number): number {
    return this.epochIndex.get(netuid) ?? 0;
  }

  unrevealed(netuid: number, who: string): number {
    let n = 0;
    for (const list of this.commits.get(netuid)?.values() ?? []) n += list.filter((c) => c.who === who).length;
    return n;
  }

  /** Pool pre-check (1010 Custom error N) for a commit, or null. */
  poolCheck(state: DevChainState, who: string, a: CommitArgs): number | null {
    const s = state.subnet(a.netuid);
    if (!s) return null;
    const n = s.neurons.find((x) => x.hotkey === who);
    if (!n) return 19;
    if (s.ownerHotkey !== who && n.stakeRao < state.stakeThreshold) return 1;
    if (n.lastUpdate !== 0 && BigInt(state.block - n.lastUpdate) < s.weightsRateLimit) return 6;
    if (a.revealRound < BigInt(this.lastStoredRound(state.block))) return POOL_INVALID_REVEAL_ROUND;
    return null;
  }

  apply(state: DevChainState, who: string, a: CommitArgs): DispatchResult {
    const fail = (error: string): DispatchResult => ({ ok: false, error });
    const s = state.subnet(a.netuid);
    if (!s || a.mecid !== 0) return fail('MechanismDoesNotExist');
    if (!s.commitRevealEnabled) return fail('CommitRevealDisabled');
    if (a.version !== this.version) return fail('IncorrectCommitRevealVersion');
    const n = s.neurons.find((x) => x.hotkey === who);
    if (!n) return fail('HotKeyNotRegisteredInSubNet');
    if (n.lastUpdate !== 0 && BigInt(state.block - n.lastUpdate) < s.weightsRateLimit) return fail('CommittingWeightsTooFast');
    if (this.unrevealed(a.netuid, who) >= MAX_UNREVEALED) return fail('TooManyUnrevealedCommits');
    if (a.revealRound < BigInt(this.lastStoredRound(state.block))) return fail('InvalidRevealRound');
    const epoch = this.epoch(a.netuid);
    let byEpoch = this.commits.get(a.netuid);
    if (!byEpoch) this.commits.set(a.netuid, (byEpoch = new Map()));
    const list = byEpoch.get(epoch) ?? [];
    list.push({ who, commitBlock: state.block, commit: a.commit, revealRound: Number(a.revealRound), epoch });
    byEpoch.set(epoch, list);
    n.lastUpdate = state.block;
    return {
      ok: true,
      events: [{ pallet: 'SubtensorModule', name: 'TimelockedWeightsCommitted', fields: [who, a.netuid, blake2AsU8a(a.commit), a.revealRound] }],
    };
  }

  /** Called once per block after the epoch boundaries moved: count epochs, reveal what is due. */
  onBlock(state: DevChainState): void {
    for (const s of state.subnets.values()) {
      if (s.lastEpochBlock === state.block && state.block > 0) this.epochIndex.set(s.netuid, this.epoch(s.netuid) + 1);
      const byEpoch = this.commits.get(s.netuid);
      if (!byEpoch) continue;
      const now = this.epoch(s.netuid);
      for (const [epoch, list] of byEpoch) {
        const due = epoch + this.revealPeriod(s.netuid);
        if (due > now) continue;
        const keep: DevCommit[] = [];
        for (const c of list) {
          const sig = this.pulse(c.revealRound, state.block);
          // The chain retries each block of the reveal epoch while the pulse is missing, then gives up.
          if (!sig && due === now) keep.push(c);
          else this.reveals.push({ block: state.block, netuid: s.netuid, who: c.who, revealRound: c.revealRound, ...this.reveal(state, s.netuid, c, sig) });
        }
        if (keep.length > 0) byEpoch.set(epoch, keep);
        else byEpoch.delete(epoch);
      }
    }
  }

  private reveal(state: DevChainState, netuid: number, c: DevCommit, sig: Uint8Array | null): { ok: boolean; why: string } {
    if (!sig) return { ok: false, why: `no pulse for round ${c.revealRound} during the reveal epoch` };
    let payload;
    try {
      payload = decodeWeightsPayload(tlockDecrypt(c.commit, sig));
    } catch (e) {
      return { ok: false, why: `undecryptable or undecodable: ${errorMessage(e)}` };
    }
    if (payload.hotkey.length !== 32 || encodeAddress(payload.hotkey, 42) !== encodeAddress(decodeAddress(c.who), 42)) {
      return { ok: false, why: 'the payload names another hotkey than the committer' };
    }
    const r = applySetWeights(state, c.who, { netuid, dests: payload.uids, weights: payload.values, versionKey: payload.versionKey }, { reveal: true });
    return r.ok ? { ok: true, why: 'revealed' } : { ok: false, why: r.error };
  }

  /** Storage items of the commit-reveal path for one block. */
  project(state: DevChainState, put: (section: string, method: string, args: unknown[], value: unknown) => void): void {
    if (!state.wallClock) put('timestamp', 'now', [], this.nowMs(state.block));
    put('drand', 'lastStoredRound', [], this.lastStoredRound(state.block));
    put('drand', 'beaconConfig', [], { publicKey: u8aToHex(this.publicKey), period: this.periodS, genesisTime: this.genesisS });
    put('subtensorModule', 'commitRevealWeightsVersion', [], this.version);
    for (const s of state.subnets.values()) {
      put('subtensorModule', 'revealPeriodEpochs', [s.netuid], this.revealPeriod(s.netuid));
      put('subtensorModule', 'subnetEpochIndex', [s.netuid], this.epoch(s.netuid));
      for (const [epoch, list] of this.commits.get(s.netuid) ?? []) {
        put(
          'subtensorModule',
          'timelockedWeightCommits',
          [s.netuid, epoch],
          list.map((c) => [c.who, c.commitBlock, u8aToHex(c.commit), c.revealRound]),
        );
      }
    }
  }
}
