// Quantities derived from raw chain values (CHAIN.md 2.3), pure so they are tested without a node.

/** Spec 424: the cutoff scales with tempo (utils/misc.rs get_activity_cutoff_blocks). 13889 x 360 -> 5000. */
export function effectiveActivityCutoff(factorMilli: number, tempo: number): number {
  return Math.max(1, Math.floor((factorMilli * tempo) / 1000));
}

/** The pre-424 schedule btcli still uses; only a fallback when get_next_epoch_start_block is unavailable. */
export function legacyNextEpochBlock(block: number, netuid: number, tempo: number): number {
  return block + tempo - ((block + netuid + 1) % (tempo + 1));
}

/** 12 s blocks. */
export const BLOCKS_PER_DAY = 7200;

export interface EarningsMath {
  alphaPriceTao: number;
  alphaPerDay: number;
  taoPerDayAtSpot: number;
}

/** Emission[uid] is alpha rao per epoch; the spot price is SubnetTAO / SubnetAlphaIn (50/50 balancer). */
export function earningsMath(emissionRao: bigint, tempo: number, subnetTaoRao: bigint, subnetAlphaInRao: bigint): EarningsMath {
  const alphaPriceTao = subnetAlphaInRao === 0n ? 0 : Number(subnetTaoRao) / Number(subnetAlphaInRao);
  const alphaPerDay = (Number(emissionRao) / 1e9) * (BLOCKS_PER_DAY / Math.max(1, tempo));
  return { alphaPriceTao, alphaPerDay, taoPerDayAtSpot: alphaPerDay * alphaPriceTao };
}
