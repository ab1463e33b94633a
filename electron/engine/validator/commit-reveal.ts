// The validator's commit-reveal v4 path (CHAIN.md 3.4): when CommitRevealWeightsEnabled is on, the same normalised
// vector goes on chain as a timelocked commit instead of set_weights. The tick keeps its schedule, cache, standby
// and replay rules; this file builds and sends the commit, recognises its own commit after a restart, and checks
// whether each reveal landed (the chain reveals silently: a dropped reveal shows only as weights that did not change).
import { polkadot } from '../lib/polkadot.ts';
import type { CommitRevealView } from '../../../shared/validator.ts';
import type { ChainPort, CommitRevealFacts, KeySigner, SubmitOutcome, TimelockedCommit } from '../chain/ports.ts';
import { planReveal } from '../chain/tlock/reveal-round.ts';
import { QUICKNET, QUICKNET_PUBLIC_KEY } from '../chain/tlock/quicknet.ts';
import { tlockEncryptOffThread } from '../chain/tlock/tlock-off-thread.ts';
import { encodeWeightsPayload } from '../chain/tlock/weights-payload.ts';
import type { Logger } from '../lib/logger.ts';
import { BLOCK_S } from './constants.ts';
import { readCommitStore, writeCommitStore, type CommitRecord, type CommitRevealStore } from './commit-reveal-store.ts';
import type { ValidatorState } from './state-file.ts';
import { errorMessage } from '../../../shared/errors.ts';

const { decodeAddress } = polkadot('@polkadot/util-crypto');

/** The WeightsTlockPayload layout this code builds; the chain's CommitRevealWeightsVersion must match it. */
export const SUPPORTED_CR_VERSION = 4;
/** Transaction mortality (PolkadotChainClient's era) plus a margin: an intent older than this can no longer land. */
const INTENT_LIFETIME_BLOCKS = 140;

export const CR_TEXT = {
  unsupported: 'This node cannot send commit-reveal weights (its chain client lacks the calls). Update the app, or pick another endpoint.',
  version: (v: number) => `The chain expects commit-reveal version ${v}, and this app builds version ${SUPPORTED_CR_VERSION} commits: nothing was sent. Update the app.`,
  encrypt: (e: string) => `Could not timelock-encrypt the weights (${e}). Nothing was sent; the next tick tries again.`,
} as const;

export interface CommitInput {
  chain: ChainPort;
  signer: KeySigner;
  netuid: number;
  storePath: string;
  epochIndex: number;
  kind: CommitRecord['kind'];
  digest: string | null;
  weights: CommitRecord['weights'];
  uids: number[];
  values: number[];
  versionKey: bigint;
  nowMs: number;
  log: Logger;
}

const refused = (code: string, message: string): SubmitOutcome => ({ ok: false, kind: 'refused', code, message });
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function isRevealRoundRefusal(o: SubmitOutcome): boolean {
  return !o.ok && (o.code === 'Custom:15' || o.code === 'InvalidRevealRound');
}

/** Which beacon the chain reveals with: its Drand.BeaconConfig, quicknet when unset (as the SDK assumes). */
function beaconFrom(f: CommitRevealFacts): { publicKey: Uint8Array; genesisS: number; periodS: number } {
  return f.beacon ?? { publicKey: QUICKNET_PUBLIC_KEY, genesisS: QUICKNET.genesisS, periodS: QUICKNET.periodS };
}

async function buildCommit(i: CommitInput, f: CommitRevealFacts): Promise<{ commit: Uint8Array; plan: ReturnType<typeof planReveal> }> {
  const beacon = beaconFrom(f);
  const plan = planReveal({
    block: f.block,
    nowMs: f.chainTimeMs ?? i.nowMs,
    nextEpochBlock: f.nextEpochBlock,
    tempo: f.tempo,
    revealPeriodEpochs: f.revealPeriodEpochs,
    lastStoredRound: f.lastStoredRound,
    beacon,
    blockS: BLOCK_S,
  });
  const payload = encodeWeightsPayload({ hotkey: decodeAddress(i.signer.address), uids: i.uids, values: i.values, versionKey: i.versionKey });
  const commit = await tlockEncryptOffThread(payload, plan.round, beacon.publicKey);
  return { commit, plan };
}

/** Build, record as intent, send. On acceptance the intent becomes a pending commit; on refusal it is cleared. */
export async function submitCommit(i: CommitInput): Promise<SubmitOutcome> {
  const { chain } = i;
  if (!chain.commitRevealFacts || !chain.commitTimelockedWeights) return refused('CommitRevealUnsupported', CR_TEXT.unsupported);
  let outcome: SubmitOutcome | null = null;
  // One retry when the pool says the round is already past: the second plan starts above Drand.LastStoredRound.
  for (let attempt = 0; attempt < 2; attempt++) {
    const f = await chain.commitRevealFacts(i.netuid);
    if (!f.enabled) return refused('CommitRevealDisabled', 'Commit-reveal was turned off on the subnet just now: nothing was committed; the next tick submits plain weights.');
    if (f.version !== SUPPORTED_CR_VERSION) return refused('IncorrectCommitRevealVersion', CR_TEXT.version(f.version));
    let built;
    try {
      built = await buildCommit(i, f);
    } catch (e) {
      return refused('EncryptFailed', CR_TEXT.encrypt(errorMessage(e)));
    }
    const { store } = readCommitStore(i.storePath);
    const record: CommitRecord = {
      epochIndex: i.epochIndex,
      kind: i.kind,
      digest: i.digest,
      weights: i.weights,
      uids: i.uids,
      values: i.values,
      revealRound: built.plan.round,
      revealEpochBlock: built.plan.revealEpochBlock,
      expectedRevealBlock: built.plan.expectedRevealBlock,
      block: f.block,
      commitBlock: null,
      commitHex: toHex(built.commit),
      at: i.nowMs,
    };
    writeCommitStore(i.storePath, { ...store, intent: record });
    i.log.info(`[commit-reveal] committing ${i.uids.length} uids (${built.commit.length} bytes) locked to drand round ${built.plan.round}, reveal expected by block ${built.plan.expectedRevealBlock}`);
    try {
      outcome = await chain.commitTimelockedWeights(i.signer, i.netuid, built.commit, built.plan.round, f.version);
    } catch (e) {
      outcome = { ok: false, kind: 'transport', code: 'exception', message: errorMessage(e) };
    }
    const after = readCommitStore(i.storePath).store;
    if (outcome.ok) {
      writeCommitStore(i.storePath, { ...after, intent: null, pending: [...after.pending, { ...record, commitBlock: outcome.blockNumber > 0 ? outcome.blockNumber : null }] });
      return outcome;
    }
    // A transport failure may still land: keep the intent so the next tick recognises the commit on chain.
    if (outcome.kind !== 'transport') writeCommitStore(i.storePath, { ...after, intent: null });
    if (!isRevealRoundRefusal(outcome)) return outcome;
    i.log.warn(`[commit-reveal] the chain refused reveal round ${built.plan.round} as already past; planning a later round once`);
  }
  return outcome ?? refused('InvalidRevealRound', 'The chain refused the reveal round twice. The next tick plans again.');
}

function sameBytes(a: Uint8Array, hex: string): boolean {
  return toHex(a) === hex;
}

/**
 * A commit sent before a restart (or a timeout) may have landed without the state file knowing. If the chain
 * holds exactly our intent's bytes, or this hotkey's LastUpdate moved at or after the block the intent was built
 * at (a commit sets it; it may already be revealed and gone from the queue), adopt it: the state moves as if the
 * tick had seen it accepted, and no second commit goes out. An intent too old to land any more is dropped.
 */
export function adoptIntent(
  store: CommitRevealStore,
  state: ValidatorState,
  onChain: readonly TimelockedCommit[],
  me: string,
  block: number | null,
  lastUpdate: number | null = null,
): { store: CommitRevealStore; state: ValidatorState | null; note: string | null } {
  const intent = store.intent;
  if (!intent) return { store, state: null, note: null };
  const queued = onChain.find((c) => c.who === me && sameBytes(c.commit, intent.commitHex));
  const moved = lastUpdate !== null && lastUpdate > intent.block && (state.lastSubmitBlock === null || lastUpdate > state.lastSubmitBlock);
  const hit = queued ?? (moved ? { commitBlock: lastUpdate } : null);
  if (hit) {
    const isStandby = intent.kind === 'standby:cached' || intent.kind === 'standby:burn';
    const next: ValidatorState = {
      lastApplied: Math.max(state.lastApplied ?? 0, intent.epochIndex),
      lastSubmitBlock: hit.commitBlock,
      lastSubmitMs: intent.at,
      cachedWeights: isStandby ? state.cachedWeights : intent.weights,
      cachedDigest: isStandby ? state.cachedDigest : intent.digest,
    };
    return {
      store: { ...store, intent: null, pending: [...store.pending, { ...intent, commitBlock: hit.commitBlock }] },
      state: next,
      note: `the commit for epoch ${intent.epochIndex} sent before a restart landed in block ${hit.commitBlock}: adopted it instead of committing again`,
    };
  }
  if (block !== null && block - intent.block > INTENT_LIFETIME_BLOCKS) {
    return { store: { ...store, intent: null }, state: null, note: `the unconfirmed commit for epoch ${intent.epochIndex} expired without landing` };
  }
  return { store, state: null, note: null };
}

/** The chain stores weights max-upscaled; allow one unit for its rounding. */
export function weightsMatch(row: readonly [number, number][], uids: readonly number[], values: readonly number[]): boolean {
  const max = Math.max(0, ...values);
  const expected = new Map<number, number>();
  uids.forEach((u, k) => {
    const v = values[k] ?? 0;
    if (v > 0 || max === 0) expected.set(u, max === 0 ? 0 : Math.floor((v * 65535) / max));
  });
  const got = new Map(row.filter(([, v]) => v > 0 || max === 0));
  if (got.size !== expected.size) return false;
  for (const [u, v] of expected) {
    const g = got.get(u);
    if (g === undefined || Math.abs(g - v) > 1) return false;
  }
  return true;
}

/**
 * Settle pending commits the chain no longer holds: revealed (weights equal the commit) or dropped at reveal.
 * Commits still queued stay pending, however late (the chain retries each block while the pulse is missing).
 */
export function settleReveals(store: CommitRevealStore, onChain: readonly TimelockedCommit[], me: string, block: number, weightsRow: readonly [number, number][] | null): CommitRevealStore {
  const queued = (r: CommitRecord) => onChain.some((c) => c.who === me && sameBytes(c.commit, r.commitHex));
  const still: CommitRecord[] = [];
  let lastReveal = store.lastReveal;
  for (const r of store.pending) {
    if (queued(r) || block < r.revealEpochBlock) {
      still.push(r);
      continue;
    }
    const landed = weightsRow !== null && weightsMatch(weightsRow, r.uids, r.values);
    lastReveal = {
      epochIndex: r.epochIndex,
      revealRound: r.revealRound,
      checkedBlock: block,
      landed,
      detail: landed
        ? `the commit for epoch ${r.epochIndex} was revealed: the weights on chain equal what was committed`
        : `the commit for epoch ${r.epochIndex} left the chain's queue but the weights on chain differ from it: the reveal failed (the chain drops a bad reveal silently) or newer weights replaced it`,
    };
  }
  return { ...store, pending: still, lastReveal };
}

export function commitRevealView(enabled: boolean | null, f: Pick<CommitRevealFacts, 'version' | 'revealPeriodEpochs'> | null, store: CommitRevealStore): CommitRevealView {
  return {
    path: enabled === null ? 'unknown' : enabled ? 'commit-reveal' : 'plain',
    version: f?.version ?? null,
    revealPeriodEpochs: f?.revealPeriodEpochs ?? null,
    pending: store.pending.map((r) => ({ epochIndex: r.epochIndex, revealRound: r.revealRound, expectedRevealBlock: r.expectedRevealBlock, commitBlock: r.commitBlock, uids: r.uids.length })),
    lastReveal: store.lastReveal,
  };
}

export { readCommitStore, writeCommitStore };
