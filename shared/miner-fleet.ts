// A rig with several engines runs one gateway worker per engine. Where one word or one number must stand for
// all of them (the Prometheus state gauge, the tray, the tab title), these rules say how.
import type { MinerPhase, MinerSnapshot } from './miner.ts';

// Least healthy first: a fleet is only "active" when every worker is, so an alert on "not active" fires
// when any one of them is pulled, refused or gone. `stopped` ranks just above `active`: a worker that has
// not started yet beside a serving one is the stagger, not a fault worth more than the others' states.
const PHASE_RANK: readonly MinerPhase[] = ['failed', 'denied', 'pulled', 'withdrawn', 'reconnecting', 'connecting', 'starting-serve', 'probing', 'waiting-for-probe', 'stopped', 'active'];

/** The phase that speaks for every worker: the least healthy one; `stopped` when there is none. */
export function fleetPhase(miners: readonly Pick<MinerSnapshot, 'phase'>[]): MinerPhase {
  let worst: MinerPhase | null = null;
  for (const m of miners) if (worst === null || PHASE_RANK.indexOf(m.phase) < PHASE_RANK.indexOf(worst)) worst = m.phase;
  return worst ?? 'stopped';
}

/** Live legs over planned legs, summed over the workers ("16/16 legs" on a two-engine rig). */
export function fleetLegs(miners: readonly Pick<MinerSnapshot, 'legsLive' | 'legsPlanned'>[]): { live: number; planned: number } {
  return miners.reduce((a, m) => ({ live: a.live + m.legsLive, planned: a.planned + m.legsPlanned }), { live: 0, planned: 0 });
}

/** Changes whenever any worker finishes a request or an audit: what a page keyed on "new activity" watches. */
export function fleetActivityKey(miners: readonly Pick<MinerSnapshot, 'recent' | 'audit'>[]): string {
  return miners.map((m) => `${m.recent[0]?.corrId ?? ''}:${m.audit.audited}:${m.audit.skipped}`).join('|');
}
