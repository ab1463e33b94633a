// What goes on chain when a verified payload lands nothing (none of its hotkeys registered):
// submitting nothing would let last_update pass the activity cutoff and drop this validator from
// consensus, so the last vector it landed goes instead, and failing that a burn to the owner hotkey.
import type { HotkeyWeight } from '../../../shared/validator.ts';
import { normalizeWeights, type NormalizedWeights } from '../chain/normalize-weights.ts';
import { U16_MAX } from './constants.ts';

export function lands(n: NormalizedWeights): boolean {
  return n.uids.length > 0 && n.values.some((v) => v > 0);
}

/** The sole recipient when one hotkey holds all the non-zero weight (a burn), else null. */
export function soleRecipient(weights: readonly HotkeyWeight[]): string | null {
  const nonzero = weights.filter(([, w]) => w > 0).map(([h]) => h);
  return nonzero.length === 1 ? (nonzero[0] ?? null) : null;
}

export type StandbyChoice =
  { kind: 'standby:cached'; weights: HotkeyWeight[]; normalized: NormalizedWeights } | { kind: 'standby:burn'; weights: HotkeyWeight[]; normalized: NormalizedWeights } | { kind: 'none'; why: string };

export function chooseStandby(opts: {
  cached: HotkeyWeight[] | null;
  /** True when the vector that landed nothing was already the cache: trying it again is pointless. */
  triedCache: boolean;
  ownerHotkey: string;
  uids: ReadonlyMap<string, number>;
}): StandbyChoice {
  if (!opts.triedCache && opts.cached) {
    const n = normalizeWeights(opts.cached, opts.uids);
    if (lands(n)) return { kind: 'standby:cached', weights: opts.cached, normalized: n };
  }
  if (opts.uids.has(opts.ownerHotkey)) {
    const burn: HotkeyWeight[] = [[opts.ownerHotkey, U16_MAX]];
    return { kind: 'standby:burn', weights: burn, normalized: normalizeWeights(burn, opts.uids) };
  }
  return { kind: 'none', why: `no landable cached vector and the owner hotkey ${opts.ownerHotkey} is not registered` };
}
