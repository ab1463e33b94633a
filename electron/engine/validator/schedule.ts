// When to submit: pure decisions, no IO. The block number is the authority; the wall clock is only
// a fallback when no block number is known, and a pre-gate that avoids opening a chain connection
// when a resubmission is clearly not due. Ambiguous cases resolve toward submitting: a missed
// submission costs consensus membership, an extra one costs at most a rate-limit refusal.
import { BLOCK_S, PREGATE_FRACTION, RATE_LIMIT_MARGIN_BLOCKS } from './constants.ts';

export interface ScheduleInput {
  epochIndex: number;
  lastApplied: number | null;
  currentBlock: number | null;
  lastSubmitBlock: number | null;
  nowMs: number;
  lastSubmitMs: number | null;
  intervalBlocks: number;
  /** The chain's block time (measured; the 12 s nominal when unreadable): the wall-clock fallback and "in ~N min". */
  blockMs?: number;
  /**
   * The chain's LastUpdate for this validator's uid (the block that included its last weights),
   * null or absent when it could not be read. When known it is what the interval counts from, as
   * the reference counts, whatever the state file says (a restart, an anchor read before
   * inclusion); 0 means this uid never set weights on this chain (a reset chain, a new
   * registration): nothing to wait for.
   */
  lastUpdate?: number | null;
}

export type ScheduleDecision =
  { submit: true; why: 'new-epoch' | 'interval-elapsed' | 'clock-elapsed' | 'clock-unknown' } | { submit: false; why: 'older-epoch' | 'too-soon'; blocksLeft: number | null; msLeft: number | null };

export function decide(i: ScheduleInput): ScheduleDecision {
  if (i.lastApplied === null || i.epochIndex > i.lastApplied) return { submit: true, why: 'new-epoch' };
  // The replay guard: verification has no freshness test, so a genuinely signed old payload is refused here.
  if (i.epochIndex < i.lastApplied) return { submit: false, why: 'older-epoch', blocksLeft: null, msLeft: null };
  const chainAnchor = i.lastUpdate ?? null;
  if (i.currentBlock !== null && chainAnchor === 0) return { submit: true, why: 'interval-elapsed' };
  const anchor = i.currentBlock !== null && chainAnchor !== null ? chainAnchor : i.lastSubmitBlock;
  if (i.currentBlock !== null && anchor !== null) {
    const waited = i.currentBlock - anchor;
    if (waited >= i.intervalBlocks) return { submit: true, why: 'interval-elapsed' };
    // A negative gap (a reorganised chain, a node behind the one that included the last
    // submission) waits, as the reference does: submitting now could land inside the rate limit.
    return { submit: false, why: 'too-soon', blocksLeft: i.intervalBlocks - waited, msLeft: (i.intervalBlocks - waited) * (i.blockMs ?? NOMINAL_BLOCK_MS) };
  }
  if (i.lastSubmitMs === null) return { submit: true, why: 'clock-unknown' };
  const elapsed = i.nowMs - i.lastSubmitMs;
  const needed = i.intervalBlocks * (i.blockMs ?? NOMINAL_BLOCK_MS);
  // A negative elapsed time means the clock jumped back, not that we just submitted.
  if (elapsed < 0 || elapsed >= needed) return { submit: true, why: 'clock-elapsed' };
  return { submit: false, why: 'too-soon', blocksLeft: null, msLeft: needed - elapsed };
}

export const NOMINAL_BLOCK_MS = BLOCK_S * 1000;

/**
 * What this process knows of the chain's block time: measured from recent blocks' timestamps
 * each time the chain is contacted (`ms`), or `unreadable`: the chain port offers no block time at
 * all (then the 12 s nominal applies). Unmeasured (a fresh start, or the last contact could not
 * read it: a young chain with a block or two has no span to measure, a read that failed), the
 * pre-gate does not guess: the next tick goes to the chain and reads it again, instead of sleeping
 * on the 12 s nominal, which on a 100 ms local chain meant 24 minutes before the first resubmission.
 */
export interface BlockTime {
  ms: number | null;
  unreadable: boolean;
}

/** The block time the pre-gate may use, or null when it must not skip (not measured). */
export function pregateBlockMs(bt: BlockTime | undefined): number | null {
  if (bt === undefined) return NOMINAL_BLOCK_MS;
  if (bt.ms !== null) return bt.ms;
  return bt.unreadable ? NOMINAL_BLOCK_MS : null;
}

/** Block time for estimates ("in ~N min"): the measured one, else nominal. */
export function estimateBlockMs(bt: BlockTime | undefined): number {
  return bt?.ms ?? NOMINAL_BLOCK_MS;
}

/**
 * True while less than 80% of the interval has passed since the last submission, at the chain's
 * block time: skip the chain entirely. Deliberately conservative: it may only skip ticks the
 * block-number decision would refuse anyway.
 */
export function pregateSkip(nowMs: number, lastSubmitMs: number | null, intervalBlocks: number, blockMs: number = NOMINAL_BLOCK_MS): boolean {
  if (lastSubmitMs === null) return false;
  const elapsed = nowMs - lastSubmitMs;
  return elapsed >= 0 && elapsed < intervalBlocks * blockMs * PREGATE_FRACTION;
}

/** The last block this process read from the chain, and when: the pre-gate's freshest anchor. */
export interface BlockObservation {
  block: number;
  atMs: number;
  /** The state's last_submit_block when it was read: the anchor is only about that submission. */
  lastSubmitBlock: number | null;
}

/**
 * The pre-gate anchored on the latest block read instead of on the last submission: skip while
 * less than 80% of the blocks that were left at that read have passed by the measured block time.
 * Each read near the due block re-anchors (and re-measures), so a chain that speeds up costs at
 * most a fraction of the remaining blocks, not of the whole interval.
 */
export function pregateSkipAnchored(nowMs: number, obs: BlockObservation | null, lastSubmitBlock: number | null, lastSubmitMs: number | null, intervalBlocks: number, blockMs: number): boolean {
  if (obs === null || lastSubmitBlock === null || obs.lastSubmitBlock !== lastSubmitBlock) return pregateSkip(nowMs, lastSubmitMs, intervalBlocks, blockMs);
  const left = lastSubmitBlock + intervalBlocks - obs.block;
  if (left <= 0) return false;
  const elapsed = nowMs - obs.atMs;
  return elapsed >= 0 && elapsed < left * blockMs * PREGATE_FRACTION;
}

/** The configured cadence, never below the chain's rate limit plus the inclusion-lag margin. */
export function effectiveInterval(configured: number, weightsRateLimit: number | null): number {
  if (weightsRateLimit === null || !Number.isFinite(weightsRateLimit)) return configured;
  return Math.max(configured, weightsRateLimit + RATE_LIMIT_MARGIN_BLOCKS);
}

/** A wait in words: seconds under a minute and a half (a fast local chain), minutes beyond. */
export function minutesText(ms: number): string {
  const v = Math.max(0, ms);
  return v < 90_000 ? `~${Math.round(v / 1000)} s` : `~${Math.round(v / 60_000)} min`;
}
