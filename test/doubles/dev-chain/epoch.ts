// TEST DOUBLE. A toy epoch so demos can watch incentive and emission follow the weights that landed.
// NOT Yuma consensus (no clipping, bonds or trust): a stake-weighted average of the active permitted
// validators' weights. Only runs for subnets seeded with `simulateEpochs: true`.
import { NOMINAL_BLOCK_MS } from './commit-reveal.ts';
import type { DevSubnet } from './state.ts';

/** Alpha emitted to a subnet per 12 s block in the toy model, rao. */
const ALPHA_PER_BLOCK = 1_000_000_000n;
/** Spec-era split: 18% owner, 41% miners, 41% validators. */
const SIDE_SHARE_PERCENT = 41n;

const toU16Shares = (xs: number[]): number[] => {
  const total = xs.reduce((a, b) => a + b, 0);
  return total > 0 ? xs.map((x) => Math.floor((x / total) * 65535)) : xs.map(() => 0);
};

/** `spanMs`: the chain time this epoch's emission stands for (chain.ts: a tempo of 12 s blocks, or the wall time it took). */
export function runToyEpoch(s: DevSubnet, block: number, spanMs: number = s.tempo * NOMINAL_BLOCK_MS): void {
  const cutoff = Math.max(1, Math.floor((s.activityCutoffFactorMilli * s.tempo) / 1000));
  const active = s.neurons.filter((n) => n.validatorPermit && n.weights.length > 0 && n.stakeRao > 0n && block - n.lastUpdate <= cutoff);
  const totalStake = active.reduce((a, n) => a + Number(n.stakeRao), 0);
  const scores = s.neurons.map(() => 0);
  for (const v of active) {
    const wsum = v.weights.reduce((a, [, w]) => a + w, 0);
    if (wsum === 0) continue;
    for (const [uid, w] of v.weights) scores[uid] = (scores[uid] ?? 0) + (Number(v.stakeRao) / totalStake) * (w / wsum);
  }
  const incentive = toU16Shares(scores);
  const dividends = toU16Shares(s.neurons.map((n) => (active.includes(n) ? Number(n.stakeRao) : 0)));
  // ALPHA_PER_BLOCK per 12 s of the chain's clock: a wall-clock epoch of a fast chain is worth a fraction of a block.
  const span = BigInt(Math.max(0, Math.round(spanMs)));
  const sidePool = (ALPHA_PER_BLOCK * span * SIDE_SHARE_PERCENT) / (100n * BigInt(NOMINAL_BLOCK_MS));
  s.neurons.forEach((n, uid) => {
    n.incentive = incentive[uid] ?? 0;
    n.dividends = dividends[uid] ?? 0;
    n.emissionRao = (sidePool * BigInt(n.incentive)) / 65535n + (sidePool * BigInt(n.dividends)) / 65535n;
  });
}
