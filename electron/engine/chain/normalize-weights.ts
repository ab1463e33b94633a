// PROTOCOL section 8: turn the verified hotkey weights into the vector set_weights carries.
// Pure and deterministic so every SN53 light validator submits bit-identical vectors.

export const U16_MAX = 65535;

export interface NormalizedWeights {
  /** Registered uids, ascending. */
  uids: number[];
  /** Values on 0..65535, summing to 65535 unless every input weight was zero. */
  values: number[];
  /** Hotkeys with no uid on the subnet right now; their weight is not submitted. */
  dropped: string[];
  /** Share (0..1) of the total input weight those dropped hotkeys held. */
  droppedShare: number;
}

/**
 * Map hotkeys to uids (read fresh from the chain), drop the unregistered, rescale onto 65535:
 * floor(w * 65535 / total), the rounding remainder goes to the largest value (ties to the lowest uid).
 * All-zero input stays all-zero (the chain accepts zeros; inventing weights would be worse).
 */
export function normalizeWeights(weights: Iterable<readonly [hotkey: string, weight: number]>, hotkeyUids: ReadonlyMap<string, number>): NormalizedWeights {
  const byUid = new Map<number, number>();
  const dropped: string[] = [];
  let droppedWeight = 0;
  let inputTotal = 0;
  for (const [hotkey, weight] of weights) {
    if (!Number.isFinite(weight) || weight < 0) throw new RangeError(`weight for ${hotkey} must be a finite non-negative number`);
    inputTotal += weight;
    const uid = hotkeyUids.get(hotkey);
    if (uid === undefined) {
      if (!dropped.includes(hotkey)) dropped.push(hotkey);
      droppedWeight += weight;
      continue;
    }
    // A hotkey listed twice keeps the sum of its weights rather than the last one silently.
    byUid.set(uid, (byUid.get(uid) ?? 0) + weight);
  }

  const uids = [...byUid.keys()].sort((a, b) => a - b);
  const raw = uids.map((u) => byUid.get(u) ?? 0);
  const total = raw.reduce((s, w) => s + w, 0);
  const droppedShare = inputTotal > 0 ? droppedWeight / inputTotal : 0;
  if (total === 0) return { uids, values: raw.map(() => 0), dropped, droppedShare };

  const values = raw.map((w) => Math.floor((w * U16_MAX) / total));
  const gap = U16_MAX - values.reduce((s, v) => s + v, 0);
  let largest = 0;
  for (let i = 1; i < values.length; i++) if ((values[i] ?? 0) > (values[largest] ?? 0)) largest = i;
  values[largest] = (values[largest] ?? 0) + gap;
  return { uids, values, dropped, droppedShare };
}

/**
 * What the bittensor SDK puts in the extrinsic for a vector (`convert_weights_and_uids_for_emit`,
 * which the reference validator's `set_weights` call goes through): each value divided by the
 * largest, times 65535, rounded as Python's round() does (half to even), and every value that
 * rounds to 0 dropped with its uid. An all-zero vector emits nothing. The chain max-upscales on
 * arrival anyway, so this changes no stored weight; it makes the panel's extrinsic carry the same
 * bytes as the SDK's for the same vector (CHAIN.md 3.1).
 */
export function sdkEmitWeights(uids: readonly number[], values: readonly number[]): { uids: number[]; values: number[] } {
  const max = values.reduce((m, v) => Math.max(m, v), 0);
  if (max === 0) return { uids: [], values: [] };
  const out = { uids: [] as number[], values: [] as number[] };
  values.forEach((v, i) => {
    const scaled = roundHalfEven((v / max) * U16_MAX);
    if (scaled === 0) return;
    out.uids.push(uids[i]!);
    out.values.push(scaled);
  });
  return out;
}

/** Python 3's round(x) for a finite non-negative float: ties go to the even integer. */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}
