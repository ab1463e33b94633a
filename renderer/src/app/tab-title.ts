import type { MinerPhase } from '../../../shared/miner.ts';
import type { ValidatorSnapshot } from '../../../shared/validator.ts';

/** "Mining - active · engy panel": what runs and how it stands, then the page, so a background tab still says it. */
export function tabTitle(s: { page: string; connection: string; miner: MinerPhase | null; validator: ValidatorSnapshot['status'] | null }): string {
  if (s.connection !== 'open') return `Engine ${s.connection === 'connecting' ? 'connecting' : 'disconnected'} · engy panel`;
  const parts: string[] = [];
  if (s.miner && s.miner !== 'stopped') parts.push(`Mining - ${s.miner.replace(/-/g, ' ')}`);
  if (s.validator && s.validator !== 'stopped') parts.push(`Validating - ${s.validator}`);
  if (parts.length === 0) parts.push('Idle');
  return `${parts.join(' · ')} · ${s.page} · engy panel`;
}
