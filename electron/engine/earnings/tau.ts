// τ per epoch, pure arithmetic over what the service stored: the verified epochs (projected) and the
// chain reads of my uid's emission (realised). Projected and realised are never added together.
import type { EpochEarnings, EpochGap, Outage, TauTotal } from '../../../shared/earnings.ts';

/** One read of the chain: my uid's emission rate and the α price at that moment. */
export interface ChainRead {
  at: number;
  /** α per second emitted to my uid: Emission[uid] / (tempo x the chain's block time, 12 s on finney). */
  alphaPerSec: number;
  /** α per second to all miners of the subnet (minerPoolAlphaPerSec; null when my incentive is 0). */
  poolAlphaPerSec: number | null;
  priceTao: number;
}

/**
 * The miner half's α per second, from my uid's: `Emission[uid]` pays my share of the miner half
 * (`Incentive`) plus my share of the validator half (`Dividends`) (CHAIN.md 2); what the owner's cut
 * leaves is split into those two equal halves. So my emission is (incentive + dividends) x one half. A
 * hotkey that mines and validates (the demo rig does) would otherwise count its dividends as mining
 * and see its projected τ inflated. Shares are Incentive/65535 and Dividends/65535; null when I have
 * no incentive (nothing says what the miners' half is, and a projection for me would be 0 anyway).
 */
export function minerPoolAlphaPerSec(alphaPerSec: number, incentive: number, dividends: number): number | null {
  if (!(incentive > 0) || !Number.isFinite(alphaPerSec)) return null;
  const d = Number.isFinite(dividends) && dividends > 0 ? dividends : 0;
  return alphaPerSec / (incentive + d);
}

/** Epoch boundaries as instants: unix seconds, unix ms, or an ISO date; anything else is unknown (null). */
export function toInstant(v: string | null): number | null {
  if (v === null || v.length > 64) return null;
  if (/^\d{9,11}(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  if (/^\d{12,14}$/.test(v)) return Number(v);
  // Only ISO-looking dates: Date.parse reads "12" as the year 2001.
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(v)) return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (v: number) => v.toPrecision(4);

/** Projected τ: my weight share x the miner pool's α over the window x the α price (chain reads nearest the window). */
export function projectTao(e: Pick<EpochEarnings, 'weightShare' | 'startMs' | 'endMs' | 'burn'>, reads: readonly ChainRead[]): { tao: number | null; note: string } {
  if (e.startMs === null || e.endMs === null || e.endMs <= e.startMs) return { tao: null, note: 'the epoch window could not be read, so its duration is unknown' };
  if (e.weightShare === 0) return { tao: 0, note: e.burn ? 'burn epoch: no billed traffic, the whole weight went to the subnet owner' : 'no weight for this hotkey in the signed result' };
  const usable = reads.filter((r) => r.poolAlphaPerSec !== null && r.poolAlphaPerSec > 0);
  if (usable.length === 0) return { tao: null, note: 'no chain read yet gives the miner emission (it needs a non-zero incentive for this uid)' };
  // The reads closest to the window: inside it if any, else the nearest one.
  const inside = usable.filter((r) => r.at >= e.startMs! && r.at <= e.endMs!);
  const basis = inside.length > 0 ? inside : [usable.reduce((a, b) => (Math.abs(b.at - e.endMs!) < Math.abs(a.at - e.endMs!) ? b : a))];
  const pool = mean(basis.map((r) => r.poolAlphaPerSec!));
  const price = mean(basis.map((r) => r.priceTao));
  const secs = (e.endMs - e.startMs) / 1000;
  const tao = e.weightShare * pool * secs * price;
  return {
    tao,
    note: `${(e.weightShare * 100).toFixed(2)} % x ${fmt(pool)} α/s miner emission x ${Math.round(secs)} s x ${fmt(price)} τ/α (${basis.length} chain read${basis.length === 1 ? '' : 's'})`,
  };
}

/** A chain read stands for the emission until the next read, at most this long (refreshes are every 10 min). */
export const READ_COVERS_MS = 30 * 60_000;

/**
 * Realised τ: my uid's emission while this epoch's weights applied (its end to the next epoch's end,
 * or now), integrated over the time the chain reads cover: each read's rate x price until the next
 * read (at most READ_COVERS_MS). Time no read covers (app or chain down) is said, never guessed.
 */
export function realiseTao(endMs: number | null, nextEndMs: number | null, reads: readonly ChainRead[], now: number): { tao: number | null; note: string } {
  if (endMs === null) return { tao: null, note: 'the epoch window could not be read' };
  const to = Math.min(nextEndMs ?? now, now);
  const inside = reads.filter((r) => r.at >= endMs && r.at <= to).sort((a, b) => a.at - b.at);
  if (inside.length === 0)
    return { tao: null, note: nextEndMs === null && now - endMs < 60_000 ? 'weights just landed: no chain read since' : 'no chain read while these weights applied (app or chain was down)' };
  let tao = 0;
  let covered = 0;
  inside.forEach((r, i) => {
    const span = Math.max(0, Math.min((inside[i + 1]?.at ?? to) - r.at, READ_COVERS_MS));
    covered += span;
    tao += r.alphaPerSec * (span / 1000) * r.priceTao;
  });
  const total = Math.max(1, to - endMs);
  return {
    tao,
    note: `${inside.length} chain read${inside.length === 1 ? '' : 's'} of your uid's emission covering ${Math.round(covered / 1000)} s of the ${Math.round(total / 1000)} s these weights applied${nextEndMs === null ? ' (still running)' : ''}`,
  };
}

export function totalSince(epochs: readonly EpochEarnings[], since: number): TauTotal {
  const inWin = epochs.filter((e) => (e.endMs ?? 0) >= since);
  return {
    projectedTao: inWin.reduce((n, e) => n + (e.projectedTao ?? 0), 0),
    realisedTao: inWin.reduce((n, e) => n + (e.realisedTao ?? 0), 0),
    epochs: inWin.length,
  };
}

/** τ per day from the last `n` epochs with a projection: their τ over their summed duration. */
/** Fewer epochs than this make no estimate: one short epoch scaled to a day jumps by half at the next one. */
export const ESTIMATE_MIN_EPOCHS = 3;

export function estimatePerDay(epochs: readonly EpochEarnings[], n = 5): { tao: number | null; basis: string } {
  const recent = [...epochs]
    .sort((a, b) => b.epochIndex - a.epochIndex)
    .filter((e) => e.projectedTao !== null && e.startMs !== null && e.endMs !== null)
    .slice(0, n);
  if (recent.length === 0) return { tao: null, basis: 'no epoch with a projection yet' };
  if (recent.length < ESTIMATE_MIN_EPOCHS) return { tao: null, basis: `an estimate needs ${ESTIMATE_MIN_EPOCHS} verified epochs; ${recent.length} so far` };
  const tao = recent.reduce((s, e) => s + e.projectedTao!, 0);
  const secs = recent.reduce((s, e) => s + (e.endMs! - e.startMs!) / 1000, 0);
  if (secs <= 0) return { tao: null, basis: 'the recent epochs have no duration' };
  // The span it scales up is named: 40 s of a simulated network and 6 h of mainnet read very differently.
  const range = recent.length === 1 ? `#${recent[0]!.epochIndex}` : `#${recent[recent.length - 1]!.epochIndex} to #${recent[0]!.epochIndex}`;
  const span = `${range}, ${spanText(secs)} of serving`;
  return { tao: (tao / secs) * 86_400, basis: `projected, from the last ${recent.length} epoch${recent.length === 1 ? '' : 's'} (${span})` };
}

function spanText(secs: number): string {
  if (secs < 120) return `${Math.round(secs)} s`;
  if (secs < 7200) return `${Math.round(secs / 60)} min`;
  return `${(secs / 3600).toFixed(1).replace(/\.0$/, '')} h`;
}

/** Missing indices between the oldest and newest known epoch, each with the reason it is missing. */
export function findGaps(epochs: readonly EpochEarnings[], fetchErrors: ReadonlyMap<number, string>, outages: readonly Outage[]): EpochGap[] {
  if (epochs.length < 2) return [];
  const known = new Set(epochs.map((e) => e.epochIndex));
  const idx = [...known].sort((a, b) => a - b);
  const gaps: EpochGap[] = [];
  for (let i = idx[0]!; i <= idx[idx.length - 1]!; i++) {
    if (known.has(i)) continue;
    const prev = epochs.find((e) => e.epochIndex === i - 1) ?? null;
    const around = prev?.endMs ?? null;
    const outage = outages.find((o) => o.source === 'provider' && around !== null && o.from <= around + 86_400_000 && (o.to ?? Infinity) >= around);
    const why = fetchErrors.get(i);
    const reason = outage
      ? `provider outage${why ? `; fetching it later failed too: ${why}` : ''}`
      : why
        ? `the provider did not give it: ${why}`
        : 'never seen: the app was not running while it was the latest epoch';
    gaps.push({ epochIndex: i, reason, outage: outage ?? null });
  }
  return gaps.slice(-60);
}
