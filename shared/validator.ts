// Light validator read model: produced by electron/engine/validator, rendered by the UI.
// Plain serializable data only (bigints travel as decimal strings).

/** Why a fetched epoch payload was refused, in PROTOCOL 8's verification order. */
export type PayloadRejectReason = 'version' | 'netuid' | 'digest' | 'signature' | 'malformed';

/** One [hotkey, u16] row of a verified result_json vector. */
export type HotkeyWeight = [hotkey: string, weight: number];

/**
 * What one tick decided. `applied` = a new epoch landed; `resubmitted` = the same epoch again on cadence;
 * `resubmitted:cached` = provider down or payload refused, the cache landed; `standby:*` = the verified
 * payload landed nothing, so the cache or a burn went instead; `submit-failed` also covers a vector that
 * lands nothing with no standby left (the reference's label for it).
 */
export type TickOutcome =
  | 'applied'
  | 'resubmitted'
  | 'resubmitted:cached'
  | 'standby:cached'
  | 'standby:burn'
  | 'skipped:too-soon'
  | 'fetch-failed'
  /** Spelled as the reference spells it, `rejected:<reason>` (operators' log alerts match on it); `older-epoch` is the replay guard, `implausible-epoch` the window past the applied epoch. */
  | `rejected:${PayloadRejectReason | 'older-epoch' | 'implausible-epoch'}`
  | 'chain-failed'
  | 'submit-failed'
  | 'error';

export type SubmissionKind = 'fresh' | 'cached' | 'standby:cached' | 'standby:burn';

export interface TickRecord {
  at: number;
  outcome: TickOutcome;
  /** The epoch the tick acted on (verified or cached), when there was one. */
  epochIndex: number | null;
  block: number | null;
  /** Plain words: what happened and when it will act next ("next resubmit in ~11 min"). */
  detail: string;
}

export interface SubmissionRecord {
  at: number;
  kind: SubmissionKind;
  epochIndex: number;
  digest: string | null;
  /** Block read just before submitting (null: the block number was unavailable). */
  block: number | null;
  uids: number[];
  weights: number[];
  /** Share (0..1) of the payload's weight held by hotkeys not registered on chain. */
  droppedShare: number;
  ok: boolean;
  extrinsicHash: string | null;
  /** Inclusion block when accepted. */
  includedBlock: number | null;
  errorCode: string | null;
  error: string | null;
}

export type ValidatorStatus = 'stopped' | 'starting' | 'running' | 'stopping' | 'failed';

export type Health = 'unknown' | 'ok' | 'down';

export interface ValidatorSnapshot {
  version: number;
  status: ValidatorStatus;
  /** Plain-language reason when status is failed. */
  failure: string | null;
  hotkey: string | null;
  netuid: number;
  providerUrl: string;
  masterHotkey: string;
  /** The last payload that verified (not necessarily submitted yet). */
  lastVerified: { epochIndex: number; digest: string; at: number } | null;
  /** What this validator last landed on chain (from the state file). */
  applied: { epochIndex: number; block: number | null; at: number | null; digest: string | null } | null;
  nextResubmit: { block: number | null; at: number | null } | null;
  chain: { health: Health; block: number | null; error: string | null; at: number | null };
  provider: { health: Health; error: string | null; at: number | null };
  neuron: {
    uid: number | null;
    validatorPermit: boolean;
    stakeRao: string;
    lastUpdate: number | null;
    blocksSinceUpdate: number | null;
    activityCutoff: number | null;
  } | null;
  warnings: string[];
  lastTickAt: number | null;
  watchdogRestarts: number;
  recentTicks: TickRecord[];
  recentSubmissions: SubmissionRecord[];
  /** Commit-reveal state; absent from snapshots of engines that predate it. */
  commitReveal?: CommitRevealView;
}

/** A commit-reveal v4 commit that landed and waits for its reveal. */
export interface PendingCommitView {
  epochIndex: number;
  /** drand round the weights are locked to. */
  revealRound: number;
  /** Block by which the chain should have revealed them (reveal epoch start + 3). */
  expectedRevealBlock: number;
  /** Inclusion block of the commit. */
  commitBlock: number | null;
  uids: number;
}

/** Which submission path the chain asks for, what waits for a reveal, and whether the last reveal landed. */
export interface CommitRevealView {
  /** From CommitRevealWeightsEnabled, read every tick that contacts the chain. */
  path: 'plain' | 'commit-reveal' | 'unknown';
  version: number | null;
  revealPeriodEpochs: number | null;
  pending: PendingCommitView[];
  /** landed: the weights on chain equal what was committed once the commit left the chain's queue. */
  lastReveal: { epochIndex: number; revealRound: number; checkedBlock: number; landed: boolean; detail: string } | null;
}
