// The vectors' "xorshift32" row generator (build_proofs.json, large case): rows too big to store
// are regenerated from a seed. Also feeds the benchmark and the CLI's generator-spec input.

export interface XorshiftRowsSpec {
  kind: 'xorshift32';
  seed: number;
  n_tokens: number;
  hidden_size: number;
  outlier_dims: number[];
}

export function isXorshiftRowsSpec(v: unknown): v is XorshiftRowsSpec {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return o['kind'] === 'xorshift32' && typeof o['seed'] === 'number' && typeof o['n_tokens'] === 'number' && typeof o['hidden_size'] === 'number' && Array.isArray(o['outlier_dims']);
}

/** float32 rows (row-major) exactly as the spec describes; |x| in [2^-6, 4), outlier dims [0.5, 128). */
export function generateXorshiftRows(spec: XorshiftRowsSpec): Float32Array {
  const h = spec.hidden_size;
  const out = new Float32Array(spec.n_tokens * h);
  const bits = new Uint32Array(out.buffer);
  const outlier = new Uint8Array(h);
  for (const d of spec.outlier_dims) if (d >= 0 && d < h) outlier[d] = 1;
  let s = spec.seed >>> 0;
  for (let i = 0; i < bits.length; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    const e = (outlier[i % h] ? 126 : 121) + ((s >>> 23) & 7);
    bits[i] = ((s >>> 31) << 31) | (e << 23) | (s & 0x7fffff);
  }
  return out;
}
