// TEST DOUBLE (fake sglang): how a dishonest or merely different serve skews the hidden rows it
// reports. Noise models another GPU's rounding (tiny, deterministic, proofs should still pass);
// int4 models a cheaper model posing as the real one (proofs should fail by a wide margin).
import { toBf16, unit } from './numerics.ts';

const INT4_GROUP = 32;

export interface PerturbOptions {
  noise: number;
  quantize: 'int4' | null;
  seed: number;
}

export function perturbRow(row: Float32Array, pos: number, o: PerturbOptions): Float32Array {
  if (o.noise > 0) {
    for (let j = 0; j < row.length; j++) row[j] = toBf16(row[j]! * (1 + o.noise * unit(o.seed ^ 0x5eed, pos, j)));
  }
  if (o.quantize === 'int4') {
    // A smaller int4 model lands near the real activations, not on them: its own drift
    // (a fixed per-dimension skew) and then 4-bit levels per group of 32 values.
    for (let j = 0; j < row.length; j++) row[j] = row[j]! * (1 + 0.35 * unit(o.seed ^ 0x1a4, j));
    for (let g = 0; g < row.length; g += INT4_GROUP) {
      const end = Math.min(row.length, g + INT4_GROUP);
      let max = 0;
      for (let j = g; j < end; j++) max = Math.max(max, Math.abs(row[j]!));
      const scale = max / 7 || 1;
      for (let j = g; j < end; j++) row[j] = toBf16(Math.max(-8, Math.min(7, Math.round(row[j]! / scale))) * scale);
    }
  }
  return row;
}
