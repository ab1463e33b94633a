import type { MinerPhase } from '../../../../shared/miner.ts';

/** The badge word for a phase: "active" is where the rig earns, so it says so. */
export function phaseLabel(p: MinerPhase): string {
  return p === 'active' ? 'earning' : p.replace(/-/g, ' ');
}

/** The engine's detail without the phase word the badge beside it already says ("probing probing (166 answered)"). */
export function phaseDetail(p: MinerPhase, detail: string): string {
  const word = p.replace(/-/g, ' ');
  const rest = detail.startsWith(`${word} `) || detail.startsWith(`${word}:`) ? detail.slice(word.length).replace(/^:?\s*/, '') : detail;
  return rest.replace(/^\((.*)\)$/, '$1');
}
