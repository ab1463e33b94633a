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
export function normalizeWeights(
  weights: Iterable<readonly [hotkey: string, weight: number]>,
  hotkeyUids: ReadonlyMap<string, number>,
): NormalizedWeights {
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
