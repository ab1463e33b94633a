import { describe, expect, it } from 'vitest';
import { buildProofs, float32ArrayToBf16, verifyProofs, type Bf16Rows } from '../../../electron/engine/proof/index.ts';
import { TOPLOC_V } from '../../../electron/engine/miner/proof-port.ts';
import { greedyGenerate } from '../../doubles/fake-sglang/model.ts';
import { perturbRow, type PerturbOptions } from '../../doubles/fake-sglang/perturb.ts';
import { CHECKPOINT_TINY } from '../../doubles/fake-sglang/spawn.ts';
import { loadCheckpointSpec } from '../../doubles/fake-sglang/vocab-plan.ts';

// What the --numerics-noise and --quantize knobs are for: a miner on another GPU still passes
// TOPLOC against the honest recomputation; a cheaper int4 model posing as the real one fails.
const spec = loadCheckpointSpec(CHECKPOINT_TINY);
const prompt = Array.from({ length: 50 }, (_, i) => spec.vocab.words[(i * 7) % spec.vocab.words.length]!);
const gen = greedyGenerate(prompt, 96, { hiddenSize: spec.hiddenSize, vocab: spec.vocab }, { ignoreEos: true });
const params = { topk: 128, decodeBatchingSize: 32, skipPrefill: true };

function toRows(rows: Float32Array[]): Bf16Rows {
  const data = new Uint16Array(rows.length * spec.hiddenSize);
  rows.forEach((r, i) => data.set(float32ArrayToBf16(r), i * spec.hiddenSize));
  return { data, rowCount: rows.length, hiddenSize: spec.hiddenSize };
}

function mismatchesWith(o: Omit<PerturbOptions, 'seed'>): number[] {
  const served = gen.rows.map((r, k) => perturbRow(r.slice(), prompt.length - 1 + k, { ...o, seed: 53 }));
  return verifyProofs(toRows(gen.rows), buildProofs(toRows(served), params), params).map((c) => c.expMismatches);
}

describe('fake serve skew knobs against TOPLOC', () => {
  it('honest rows verify exactly', () => {
    expect(mismatchesWith({ noise: 0, quantize: null })).toEqual([0, 0, 0]);
  });

  it('other-GPU rounding noise stays well inside the threshold', () => {
    const m = mismatchesWith({ noise: 0.003, quantize: null });
    expect(Math.max(...m)).toBeLessThanOrEqual(TOPLOC_V / 4);
  });

  it('an int4 model posing as the real one fails every chunk', () => {
    const m = mismatchesWith({ noise: 0, quantize: 'int4' });
    expect(Math.min(...m)).toBeGreaterThan(TOPLOC_V);
  });
});
