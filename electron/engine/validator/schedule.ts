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
}

export type ScheduleDecision =
  | { submit: true; why: 'new-epoch' | 'interval-elapsed' | 'clock-elapsed' | 'clock-unknown' }
  | { submit: false; why: 'older-epoch' | 'too-soon'; blocksLeft: number | null; msLeft: number | null };

export function decide(i: ScheduleInput): ScheduleDecision {
  if (i.lastApplied === null || i.epochIndex > i.lastApplied) return { submit: true, why: 'new-epoch' };
  // The replay guard: verification has no freshness test, so a genuinely signed old payload is refused here.
  if (i.epochIndex < i.lastApplied) return { submit: false, why: 'older-epoch', blocksLeft: null, msLeft: null };
  if (i.currentBlock !== null && i.lastSubmitBlock !== null) {
    const waited = i.currentBlock - i.lastSubmitBlock;
    if (waited >= i.intervalBlocks || waited < 0) return { submit: true, why: 'interval-elapsed' };
    return { submit: false, why: 'too-soon', blocksLeft: i.intervalBlocks - waited, msLeft: (i.intervalBlocks - waited) * BLOCK_S * 1000 };
  }
  if (i.lastSubmitMs === null) return { submit: true, why: 'clock-unknown' };
  const elapsed = i.nowMs - i.lastSubmitMs;
  const needed = i.intervalBlocks * BLOCK_S * 1000;
  // A negative elapsed time means the clock jumped back, not that we just submitted.
  if (elapsed < 0 || elapsed >= needed) return { submit: true, why: 'clock-elapsed' };
  return { submit: false, why: 'too-soon', blocksLeft: null, msLeft: needed - elapsed };
}

/** True while less than 80% of the interval has passed since the last submission: skip the chain entirely. */
export function pregateSkip(nowMs: number, lastSubmitMs: number | null, intervalBlocks: number): boolean {
  if (lastSubmitMs === null) return false;
  const elapsed = nowMs - lastSubmitMs;
  return elapsed >= 0 && elapsed < intervalBlocks * BLOCK_S * 1000 * PREGATE_FRACTION;
}

/** The configured cadence, never below the chain's rate limit plus the inclusion-lag margin. */
export function effectiveInterval(configured: number, weightsRateLimit: number | null): number {
  if (weightsRateLimit === null || !Number.isFinite(weightsRateLimit)) return configured;
  return Math.max(configured, weightsRateLimit + RATE_LIMIT_MARGIN_BLOCKS);
}

export function minutesText(ms: number): string {
  return `~${Math.max(0, Math.round(ms / 60_000))} min`;
}
