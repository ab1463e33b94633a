// Which drand round a commit is locked to, from the chain's own epoch schedule (CHAIN.md 3.4; docs/validator.md
// "Commit-reveal: the reveal round"). Spec 424 schedules epochs statefully, so the next epoch's first block is
// asked of the chain (get_next_epoch_start_block) rather than derived from the legacy (tempo + 1) formula.

export interface BeaconSchedule {
  genesisS: number;
  periodS: number;
}

export interface RevealInput {
  /** Block the commit is built at. */
  block: number;
  /** Chain time of that block (Timestamp.Now), ms; the wall clock when the chain does not say. */
  nowMs: number;
  /** First block of the next epoch, as the chain reports it. */
  nextEpochBlock: number;
  tempo: number;
  revealPeriodEpochs: number;
  /** Drand.LastStoredRound: the pool refuses a reveal round below it. */
  lastStoredRound: number;
  beacon: BeaconSchedule;
  /** Seconds per block; 12 on finney. */
  blockS: number;
}

export interface RevealPlan {
  round: number;
  /** First block of the epoch in which the chain reveals. */
  revealEpochBlock: number;
  /** The block by which the round's pulse should be on chain and the weights revealed. */
  expectedRevealBlock: number;
}

/** Blocks after the reveal epoch starts that the round's pulse targets (the SDK's +3: pulses land a few blocks late). */
export const REVEAL_TARGET_OFFSET_BLOCKS = 3;

export function planReveal(i: RevealInput): RevealPlan {
  const period = Math.max(1, i.revealPeriodEpochs);
  // Not pushed to the epoch after when the boundary is close: a commit included before the boundary is revealed
  // in the next epoch and needs this round then. One included after it is revealed a tempo later (the pulse is
  // stored by then), or refused by the pool if the round is already stored, and submitCommit plans again once.
  const next = Math.max(i.block + 1, i.nextEpochBlock);
  // A commit made now belongs to the current epoch; the chain reveals it `period` epochs later, i.e. at the
  // start of the epoch that begins (period - 1) tempos after the next boundary.
  const revealEpochBlock = next + (period - 1) * i.tempo;
  const expectedRevealBlock = revealEpochBlock + REVEAL_TARGET_OFFSET_BLOCKS;
  const targetS = i.nowMs / 1000 + (expectedRevealBlock - i.block) * i.blockS;
  const byTime = Math.floor((targetS - i.beacon.genesisS) / i.beacon.periodS);
  const round = Math.max(1, byTime, i.lastStoredRound + 1);
  return { round, revealEpochBlock, expectedRevealBlock };
}
