// The tick's commit-reveal hooks, kept out of tick.ts: before deciding, recognise a commit that landed unrecorded
// and settle the reveals that are due; at submit time, pick commit or set_weights from the switch read this tick.
import type { CommitRevealView } from '../../../shared/validator.ts';
import type { ChainPort, KeySigner, SubmitOutcome, SubnetFacts } from '../chain/ports.ts';
import type { Logger } from '../lib/logger.ts';
import { adoptIntent, commitRevealView, settleReveals, submitCommit, type CommitInput } from './commit-reveal.ts';
import { commitStorePath, readCommitStore, writeCommitStore } from './commit-reveal-store.ts';
import { writeState, type ValidatorState } from './state-file.ts';
import { errorMessage } from '../../../shared/errors.ts';

export interface CrTrack {
  view: CommitRevealView;
  /** The state after adopting a commit that landed unrecorded; the tick continues from it. */
  state: ValidatorState;
  /** False when commit-reveal is on and this chain port cannot commit: the tick must not submit. */
  canSubmit: boolean;
}

export async function trackCommitReveal(o: {
  chain: ChainPort;
  facts: SubnetFacts;
  statePath: string;
  me: string;
  uid: number | null;
  /** This hotkey's LastUpdate: a commit sets it, so it proves a commit landed after it left the queue. */
  lastUpdate: number | null;
  block: number | null;
  state: ValidatorState;
  log: Logger;
  warnings: string[];
}): Promise<CrTrack> {
  const path = commitStorePath(o.statePath);
  const read = readCommitStore(path);
  let store = read.store;
  if (read.dropped > 0) o.warnings.push(`the commit-reveal record had ${read.dropped} unreadable entr${read.dropped === 1 ? 'y' : 'ies'}; they were ignored`);
  const enabled = o.facts.commitRevealEnabled;
  const canCommit = o.chain.commitRevealFacts !== undefined && o.chain.commitTimelockedWeights !== undefined;
  let state = o.state;
  let crFacts = null;
  const busy = enabled || store.intent !== null || store.pending.length > 0;
  if (busy && o.chain.timelockedCommits) {
    try {
      const onChain = (await o.chain.timelockedCommits(o.facts.netuid)).filter((c) => c.who === o.me);
      const adopted = adoptIntent(store, state, onChain, o.me, o.block, o.lastUpdate);
      store = adopted.store;
      if (adopted.note) o.log.warn(`[commit-reveal] ${adopted.note}`);
      if (adopted.state) {
        state = adopted.state;
        writeState(o.statePath, state);
      }
      const block = o.block ?? o.facts.block;
      const due = store.pending.some((r) => block >= r.revealEpochBlock);
      const row = due && o.uid !== null && o.chain.weightsRow ? await o.chain.weightsRow(o.facts.netuid, o.uid) : null;
      const before = store.lastReveal;
      store = settleReveals(store, onChain, o.me, block, row);
      if (store.lastReveal && store.lastReveal !== before) {
        (store.lastReveal.landed ? o.log.info : o.log.warn)(`[commit-reveal] ${store.lastReveal.detail}`);
        if (!store.lastReveal.landed) o.warnings.push(store.lastReveal.detail);
      }
      writeCommitStore(path, store);
    } catch (e) {
      o.log.warn(`[commit-reveal] reading the commit queue failed (${errorMessage(e)}); pending commits are re-checked next tick`);
    }
  }
  if (enabled && canCommit && o.chain.commitRevealFacts) {
    try {
      crFacts = await o.chain.commitRevealFacts(o.facts.netuid);
    } catch (e) {
      o.log.warn(`[commit-reveal] reading the reveal settings failed: ${errorMessage(e)}`);
    }
  }
  return { view: commitRevealView(enabled, crFacts, store), state, canSubmit: !enabled || canCommit };
}

/** Commit when the chain says commit-reveal is on, set_weights otherwise: the same vector, schedule and records. */
export async function submitWeights(
  chain: ChainPort,
  facts: SubnetFacts,
  signer: KeySigner,
  c: Omit<CommitInput, 'chain' | 'signer' | 'storePath' | 'versionKey'> & { statePath: string },
): Promise<{ outcome: SubmitOutcome; call: string; view: CommitRevealView | null }> {
  if (!facts.commitRevealEnabled) {
    return { outcome: await chain.setWeights(signer, c.netuid, c.uids, c.values, facts.weightsVersionKey), call: 'set_weights', view: null };
  }
  const storePath = commitStorePath(c.statePath);
  const outcome = await submitCommit({ ...c, chain, signer, storePath, versionKey: facts.weightsVersionKey });
  return { outcome, call: 'commit_timelocked_weights', view: commitRevealView(true, null, readCommitStore(storePath).store) };
}
