// One poll cycle of the light validator (PROTOCOL 8): fetch and verify, pick the vector (fresh,
// cached, standby), decide by the schedule, resolve uids fresh, submit, and only on acceptance
// move the state file. Never submits anything unverified; never goes silent when it can help it.
import type { ChainPort, KeySigner, NeuronFacts, SubnetFacts } from '../chain/ports.ts';
import { normalizeWeights, sdkEmitWeights, type NormalizedWeights } from '../chain/normalize-weights.ts';
import type { Logger } from '../lib/logger.ts';
import type { HotkeyWeight, SubmissionKind, SubmissionRecord, TickOutcome, TickRecord } from '../../../shared/validator.ts';
import type { CommitRevealView } from '../../../shared/validator.ts';
import { LATEST_EPOCH_PATH, MAX_EPOCH_INDEX, MAX_EPOCH_JUMP } from './constants.ts';
import { SUBNET_OWNER_HOTKEY } from '../../../shared/network.ts';
import { submitWeights, trackCommitReveal } from './commit-reveal-tick.ts';
import { fetchJsonCapped } from './payload-fetch.ts';
import type { FetchFn } from '../lib/fetch.ts';
import { verifyPayload } from './payload-verify.ts';
import { decide, effectiveInterval, estimateBlockMs, minutesText, pregateBlockMs, pregateSkipAnchored, type BlockObservation, type BlockTime } from './schedule.ts';
import { chooseStandby, lands, soleRecipient } from './standby.ts';
import { readState, writeState, type ValidatorState } from './state-file.ts';
import { errorMessage } from '../../../shared/errors.ts';
import { readBlockTimeMs } from '../chain/block-time.ts';

export interface TickConfig {
  providerUrl: string;
  masterHotkey: string;
  netuid: number;
  statePath: string;
  resubmitBlocks: number;
  fetchTimeoutMs?: number;
}

export interface TickDeps {
  /** Opens (or reuses) a chain connection; only called when the pre-gate lets the tick through. */
  openChain: () => Promise<ChainPort>;
  signer: KeySigner;
  fetch?: FetchFn;
  now: () => number;
  logger: Logger;
  /** The rate limit seen on the previous tick, so the pre-gate uses the effective interval. */
  knownRateLimit?: number | null;
  /** The chain's block time as this process last measured it (undefined: assume the 12 s nominal). */
  blockTime?: BlockTime;
  /** The last block this process read, for the anchored pre-gate. */
  lastObservation?: BlockObservation | null;
  /** Waits inside the tick (tests may shorten it); default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

/** A resubmission due within this much time is waited for on the open connection. */
const DUE_WAIT_MAX_MS = 15_000;
/** While waiting for the due block, the provider is asked every block (within these bounds) whether a newer epoch is out. */
const providerRecheckMs = (blockMs: number) => Math.min(2_000, Math.max(100, blockMs));

/** The epoch index the provider now serves, when newer than `than` (not verified here: the next tick verifies). */
async function newerEpochPublished(cfg: TickConfig, deps: TickDeps, than: number): Promise<number | null> {
  const r = await fetchJsonCapped(`${cfg.providerUrl.replace(/\/+$/, '')}${LATEST_EPOCH_PATH}`, { fetch: deps.fetch, timeoutMs: 5_000 });
  if (!r.ok || typeof r.value !== 'object' || r.value === null) return null;
  const idx = (r.value as { epoch_index?: unknown }).epoch_index;
  return typeof idx === 'number' && Number.isSafeInteger(idx) && idx > than ? idx : null;
}

export interface TickReport {
  tick: TickRecord;
  submission: SubmissionRecord | null;
  verified: { epochIndex: number; digest: string } | null;
  provider: { ok: boolean; error: string | null };
  chain: { contacted: boolean; ok: boolean; error: string | null; block: number | null };
  /**
   * Block time measured on this tick: a number; 'unreadable' when the read failed or the chain is too
   * young to measure (read again next contact); 'not-offered' when the chain port has no block time
   * (the 12 s nominal); null when the chain was not contacted.
   */
  blockMs: number | 'unreadable' | 'not-offered' | null;
  facts: SubnetFacts | null;
  neuron: NeuronFacts | null;
  warnings: string[];
  state: ValidatorState;
  intervalBlocks: number;
  /** Commit-reveal path, pending commits and last reveal; absent when the chain was not read this tick. */
  commitReveal?: CommitRevealView;
}

interface Candidate {
  weights: HotkeyWeight[];
  epochIndex: number;
  digest: string | null;
  fromCache: boolean;
}

/** A report that says nothing happened yet; `detail` fills the tick when it ends here (an error). */
export function blankReport(now: number, state: ValidatorState, intervalBlocks: number, detail: string): TickReport {
  return {
    tick: { at: now, outcome: 'error', epochIndex: null, block: null, detail },
    submission: null,
    verified: null,
    provider: { ok: false, error: null },
    chain: { contacted: false, ok: false, error: null, block: null },
    blockMs: null,
    facts: null,
    neuron: null,
    warnings: [],
    state,
    intervalBlocks,
  };
}

/** The chain's LastUpdate for this validator's uid, when read and set. */
function lastUpdateOf(r: TickReport): number | null {
  const n = r.neuron;
  return n && n.uid !== null && n.lastUpdate !== null && n.lastUpdate > 0 ? n.lastUpdate : null;
}

export async function runTick(cfg: TickConfig, deps: TickDeps): Promise<TickReport> {
  const now = deps.now();
  const log = deps.logger;
  const warnings: string[] = [];
  const { state: stored, dropped } = readState(cfg.statePath);
  let state = stored;
  if (dropped.length > 0) {
    const w = `the state file had unreadable fields (${dropped.join(', ')}); they were ignored`;
    warnings.push(w);
    log.warn(`[state] ${w}`);
  }
  const report = blankReport(now, state, effectiveInterval(cfg.resubmitBlocks, deps.knownRateLimit ?? null), '');
  report.warnings = warnings;
  const finish = (outcome: TickOutcome, detail: string, epochIndex: number | null): TickReport => {
    report.tick = { at: now, outcome, epochIndex, block: report.chain.block, detail };
    return report;
  };

  // 1. The vector: a freshly verified one, else the last one this validator landed.
  let candidate: Candidate | null = null;
  let failure: { outcome: TickOutcome; why: string } | null = null;
  const fetched = await fetchJsonCapped(`${cfg.providerUrl.replace(/\/+$/, '')}${LATEST_EPOCH_PATH}`, {
    fetch: deps.fetch,
    timeoutMs: cfg.fetchTimeoutMs ?? 30_000,
  });
  if (!fetched.ok) {
    // A 404 is the provider answering that it has published no epoch result yet (a network before its first
    // epoch ends, as the simulated one at start): reached, so not an outage, as the earnings poll counts it.
    const none = fetched.error.kind === 'http' && fetched.error.status === 404;
    const why = none ? `the provider has not published an epoch result yet (${fetched.error.message})` : fetched.error.message;
    failure = { outcome: 'fetch-failed', why };
    report.provider = none ? { ok: true, error: null } : { ok: false, error: fetched.error.message };
    log.warn(`[sync] fetch failed: ${why}`);
  } else {
    report.provider = { ok: true, error: null };
    const v = verifyPayload(fetched.value, { masterHotkey: cfg.masterHotkey, netuid: cfg.netuid });
    if (!v.ok) {
      failure = { outcome: `rejected:${v.reason}`, why: `payload rejected (${v.reason}): ${v.detail}` };
      log.warn(`[sync] payload rejected: ${v.reason} (${v.detail})`);
    } else if (state.lastApplied !== null && v.epochIndex < state.lastApplied) {
      // The replay guard: a genuinely signed but older result never goes on chain again.
      failure = { outcome: 'rejected:older-epoch', why: `provider served epoch ${v.epochIndex}, older than the applied ${state.lastApplied} (replay guard)` };
      log.warn(`[sync] payload rejected: epoch ${v.epochIndex} is older than the applied epoch ${state.lastApplied}; never submitting it`);
    } else if (v.epochIndex > MAX_EPOCH_INDEX || (state.lastApplied !== null && v.epochIndex > state.lastApplied + MAX_EPOCH_JUMP)) {
      const past = state.lastApplied === null ? `the largest plausible epoch ${MAX_EPOCH_INDEX}` : `the applied epoch ${state.lastApplied}`;
      failure = { outcome: 'rejected:implausible-epoch', why: `provider served epoch ${v.epochIndex}, implausibly far past ${past}` };
      log.warn(`[sync] payload rejected: epoch ${v.epochIndex} is implausibly far past ${past} (more than ${MAX_EPOCH_JUMP} epochs ahead, or beyond ${MAX_EPOCH_INDEX}); never applying it`);
    } else {
      report.verified = { epochIndex: v.epochIndex, digest: v.digest };
      candidate = { weights: v.weights, epochIndex: v.epochIndex, digest: v.digest, fromCache: false };
    }
  }
  if (!candidate && failure) {
    if (state.cachedWeights === null || state.lastApplied === null) {
      return finish(failure.outcome, `${failure.why}; no cached vector to fall back on, nothing submitted`, null);
    }
    log.info(`[sync] no usable payload (${failure.why}): resubmitting the cached epoch ${state.lastApplied} vector (${state.cachedWeights.length} hotkeys) on its cadence`);
    candidate = { weights: state.cachedWeights, epochIndex: state.lastApplied, digest: state.cachedDigest, fromCache: true };
  }
  if (!candidate) return finish('error', 'no vector and no failure: unreachable', null);
  const epoch = candidate.epochIndex;
  const isNewEpoch = state.lastApplied === null || epoch > state.lastApplied;

  // 2. Pre-gate: most ticks land here; say so, without opening a chain connection.
  const gateMs = pregateBlockMs(deps.blockTime);
  if (!isNewEpoch && gateMs !== null && pregateSkipAnchored(now, deps.lastObservation ?? null, state.lastSubmitBlock, state.lastSubmitMs, report.intervalBlocks, gateMs)) {
    const obs = deps.lastObservation;
    const dueIn =
      obs && state.lastSubmitBlock !== null && obs.lastSubmitBlock === state.lastSubmitBlock
        ? (state.lastSubmitBlock + report.intervalBlocks - obs.block) * gateMs - (now - obs.atMs)
        : report.intervalBlocks * gateMs - (now - (state.lastSubmitMs ?? now));
    return finish('skipped:too-soon', `epoch ${epoch} already submitted; next resubmit in ${minutesText(dueIn)} (not contacting the chain yet)`, epoch);
  }

  // 3. Chain facts, read at submit time.
  let chain: ChainPort;
  let facts: SubnetFacts;
  let uidMap: Map<string, number>;
  report.chain.contacted = true;
  try {
    chain = await deps.openChain();
  } catch (e) {
    report.chain = { contacted: true, ok: false, error: errorMessage(e), block: null };
    log.error(`[chain] open failed: ${errorMessage(e)}`);
    return finish('chain-failed', `cannot reach the chain: ${errorMessage(e)}`, epoch);
  }
  let block: number | null = null;
  try {
    const b = await chain.blockNumber();
    block = Number.isSafeInteger(b) && b > 0 ? b : null;
  } catch (e) {
    log.warn(`[chain] block number unavailable (${errorMessage(e)}): falling back to the wall clock`);
  }
  report.chain.block = block;
  // Refreshed on every contact: the pre-gate's next decisions use the chain's own pace.
  const measured = await readBlockTimeMs(chain);
  report.blockMs = measured.ms ?? (chain.blockTimeMs ? 'unreadable' : 'not-offered');
  if (measured.ms === null && measured.error !== null) log.warn(`[chain] block time unreadable (${measured.error}): estimating with 12 s blocks, reading it again on the next tick`);
  const blockMs = typeof report.blockMs === 'number' ? report.blockMs : estimateBlockMs(undefined);
  try {
    facts = await chain.subnetFacts(cfg.netuid);
  } catch (e) {
    report.chain = { contacted: true, ok: false, error: errorMessage(e), block };
    log.error(`[chain] reading subnet ${cfg.netuid} failed: ${errorMessage(e)}`);
    return finish('chain-failed', `cannot read subnet ${cfg.netuid} from the chain: ${errorMessage(e)}`, epoch);
  }
  report.facts = facts;
  report.chain = { contacted: true, ok: true, error: null, block };
  report.intervalBlocks = effectiveInterval(cfg.resubmitBlocks, facts.weightsRateLimit);
  try {
    report.neuron = await chain.neuron(cfg.netuid, deps.signer.address);
  } catch (e) {
    log.warn(`[chain] reading this hotkey's neuron failed: ${errorMessage(e)}`);
  }
  if (report.neuron && report.neuron.uid === null) warnings.push(`the hotkey ${deps.signer.address} is not registered on netuid ${cfg.netuid}: every submission will fail`);
  else if (report.neuron && !report.neuron.validatorPermit) warnings.push(`the hotkey has no validator permit on netuid ${cfg.netuid}: the chain refuses its weights until it earns one (stake more)`);
  const cr = await trackCommitReveal({
    chain,
    facts,
    statePath: cfg.statePath,
    me: deps.signer.address,
    uid: report.neuron?.uid ?? null,
    lastUpdate: report.neuron?.lastUpdate ?? null,
    block,
    state,
    log,
    warnings,
  });
  report.commitReveal = cr.view;
  state = report.state = cr.state;
  if (!cr.canSubmit) {
    const msg = `commit-reveal weights are enabled on netuid ${cfg.netuid}: the chain refuses plain set_weights, and this chain connection cannot send commits`;
    warnings.push(msg);
    log.error(`[chain] ${msg}`);
    return finish('submit-failed', msg, epoch);
  }

  const decideAt = (b: number | null) =>
    decide({
      epochIndex: epoch,
      lastApplied: state.lastApplied,
      currentBlock: b,
      lastSubmitBlock: state.lastSubmitBlock,
      nowMs: now,
      lastSubmitMs: state.lastSubmitMs,
      intervalBlocks: report.intervalBlocks,
      blockMs,
      lastUpdate: report.neuron && report.neuron.uid !== null ? report.neuron.lastUpdate : null,
    });
  let decision = decideAt(block);
  // Due within a few seconds: wait on this connection for the due block rather than close it and
  // pay a new connection a poll later (on a fast local chain that is tens of blocks late).
  if (!decision.submit && decision.blocksLeft !== null && decision.blocksLeft * blockMs <= DUE_WAIT_MAX_MS) {
    const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const giveUpAt = Date.now() + Math.min(DUE_WAIT_MAX_MS * 2, decision.blocksLeft * blockMs * 3 + 2000);
    let providerCheckAt = Date.now() + providerRecheckMs(blockMs);
    let newer: number | null = null;
    while (!decision.submit && Date.now() < giveUpAt) {
      await sleep(Math.max(20, Math.min(1000, blockMs / 2)));
      try {
        const b = await chain.blockNumber();
        if (Number.isSafeInteger(b) && b > 0) block = b;
      } catch {
        break;
      }
      decision = decideAt(block);
      // Waiting must not blind the validator to a new epoch: a newer one ends the wait, and the next tick
      // verifies and applies it (resubmitting the old vector first would spend the rate-limit window).
      if (!decision.submit && Date.now() >= providerCheckAt) {
        providerCheckAt = Date.now() + providerRecheckMs(blockMs);
        newer = await newerEpochPublished(cfg, deps, epoch);
        if (newer !== null) break;
      }
    }
    report.chain.block = block;
    if (newer !== null) {
      return finish('skipped:too-soon', `epoch ${newer} was published while epoch ${epoch} waited for its resubmit block; the next tick applies it`, epoch);
    }
  }
  if (!decision.submit) {
    const detail =
      decision.blocksLeft !== null
        ? `epoch ${epoch} already submitted at block ${lastUpdateOf(report) ?? state.lastSubmitBlock}; next resubmit in ${decision.blocksLeft} blocks (${minutesText(decision.msLeft ?? 0)})`
        : `epoch ${epoch} already submitted; next resubmit in ${minutesText(decision.msLeft ?? 0)} by the wall clock (block number unavailable)`;
    return finish('skipped:too-soon', detail, epoch);
  }

  // 4. Uids read fresh: they are reassigned, so never cached.
  try {
    uidMap = await chain.hotkeyUids(cfg.netuid);
  } catch (e) {
    report.chain = { contacted: true, ok: false, error: errorMessage(e), block };
    log.error(`[chain] reading the metagraph failed: ${errorMessage(e)}`);
    return finish('chain-failed', `cannot read the metagraph: ${errorMessage(e)}`, epoch);
  }
  const owner = facts.ownerHotkey ?? SUBNET_OWNER_HOTKEY;
  const sole = soleRecipient(candidate.weights);
  if (sole !== null && sole !== owner) {
    const w = `the vector gives all its weight to ${sole}, not the subnet owner ${owner}: submitting anyway; check the provider's owner hotkey`;
    warnings.push(w);
    log.warn(`[chain] ${w}`);
  }
  let kind: SubmissionKind = candidate.fromCache ? 'cached' : 'fresh';
  let normalized: NormalizedWeights = normalizeWeights(candidate.weights, uidMap);
  if (normalized.dropped.length > 0) {
    log.warn(
      `[chain] ${normalized.dropped.length} payload hotkey(s) not registered on chain, holding ${(normalized.droppedShare * 100).toFixed(1)}% of the weight: dropped ${normalized.dropped.slice(0, 5).join(', ')}`,
    );
  }
  if (!lands(normalized)) {
    log.warn(
      `[chain] none of the vector's hotkeys are registered on chain (${
        (sole ??
          candidate.weights
            .slice(0, 5)
            .map(([h]) => h)
            .join(', ')) ||
        'empty vector'
      })`,
    );
    const standby = chooseStandby({ cached: state.cachedWeights, triedCache: candidate.fromCache, ownerHotkey: owner, uids: uidMap });
    if (standby.kind === 'none') {
      return finish('submit-failed', `the vector lands nothing and ${standby.why}: nothing submitted, the last weights stand`, epoch);
    }
    log.warn(
      standby.kind === 'standby:cached'
        ? '[chain] standby: resubmitting the last vector this validator landed'
        : `[chain] standby: no landable cache, burning to ${owner} to stay inside the activity cutoff`,
    );
    kind = standby.kind;
    normalized = standby.normalized;
  }

  // 5. Submit; the state moves only if the chain accepted.
  const isStandby = kind === 'standby:cached' || kind === 'standby:burn';
  const digestForRecord = isStandby ? null : candidate.digest;
  let outcome;
  let call = facts.commitRevealEnabled ? 'commit_timelocked_weights' : 'set_weights';
  // The bytes the SDK would send for this vector (the reference goes through it): max-upscaled, zeros dropped.
  const emitted = sdkEmitWeights(normalized.uids, normalized.values);
  try {
    const sent = await submitWeights(chain, facts, deps.signer, {
      netuid: cfg.netuid,
      statePath: cfg.statePath,
      epochIndex: epoch,
      kind,
      digest: digestForRecord,
      weights: isStandby ? (state.cachedWeights ?? []) : candidate.weights,
      uids: emitted.uids,
      values: emitted.values,
      nowMs: now,
      log,
    });
    outcome = sent.outcome;
    call = sent.call;
    if (sent.view && report.commitReveal) report.commitReveal = { ...report.commitReveal, pending: sent.view.pending, lastReveal: sent.view.lastReveal };
  } catch (e) {
    outcome = { ok: false as const, kind: 'transport' as const, code: 'exception', message: errorMessage(e) };
  }
  const submission: SubmissionRecord = {
    at: now,
    kind,
    epochIndex: epoch,
    digest: digestForRecord,
    block,
    uids: emitted.uids,
    weights: emitted.values,
    droppedShare: normalized.droppedShare,
    ok: outcome.ok,
    extrinsicHash: outcome.ok ? outcome.extrinsicHash : (outcome.extrinsicHash ?? null),
    includedBlock: outcome.ok ? outcome.blockNumber : null,
    errorCode: outcome.ok ? null : outcome.code,
    error: outcome.ok ? null : outcome.message,
  };
  report.submission = submission;
  if (!outcome.ok) {
    log.error(`[chain] ${call}(${emitted.uids.length} uids) refused: ${outcome.code}: ${outcome.message}`);
    return finish('submit-failed', `the chain refused the weights (${outcome.code}): ${outcome.message}; nothing advanced, retrying next tick`, epoch);
  }
  const anchor = block ?? (outcome.blockNumber > 0 ? outcome.blockNumber : null);
  const next: ValidatorState = {
    lastApplied: epoch,
    lastSubmitBlock: anchor,
    lastSubmitMs: now,
    // A standby is a liveness stopgap, not this epoch's result: the cache keeps the scored vector.
    cachedWeights: isStandby ? state.cachedWeights : candidate.weights,
    cachedDigest: isStandby ? state.cachedDigest : candidate.digest,
  };
  writeState(cfg.statePath, next);
  report.state = next;
  const gap = block !== null && state.lastSubmitBlock !== null ? String(block - state.lastSubmitBlock) : '?';
  log.info(`[chain] ${call}(${emitted.uids.length} uids) -> accepted in block ${outcome.blockNumber} (${outcome.extrinsicHash})`);
  log.info(`[sync] epoch ${epoch}: submitted ${emitted.uids.length} uids as ${kind} (${gap} blocks since last submit)`);
  const tickOutcome: TickOutcome = isStandby ? (kind as TickOutcome) : candidate.fromCache ? 'resubmitted:cached' : isNewEpoch ? 'applied' : 'resubmitted';
  return finish(
    tickOutcome,
    `epoch ${epoch}: ${emitted.uids.length} uids landed in block ${outcome.blockNumber}; next resubmit in ${report.intervalBlocks} blocks (${minutesText(report.intervalBlocks * blockMs)})`,
    epoch,
  );
}
