import { describe, expect, it } from 'vitest';
import {
  buildProofPolys,
  buildProofs,
  float32ArrayToBf16,
  nullProof,
  proofFromBase64,
  proofToBase64,
  TopkSelector,
  verifyProofs,
  type Bf16Rows,
  type ProofParams,
} from '../../../electron/engine/proof/index.ts';
import { xorshiftRandom as rng } from '../../helpers/xorshift.ts';

function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
}

/** float32 rows like a model's hidden states: per-dim scales and a couple of outlier dims. */
function f32Rows(r: () => number, n: number, h: number): Float32Array {
  const scale = Array.from({ length: h }, (_, j) => (j === 3 || j === 519 ? 20 : 0.5 + r()));
  const out = new Float32Array(n * h);
  for (let i = 0; i < out.length; i++) out[i] = gaussian(r) * scale[i % h]!;
  return out;
}

const rowsOf = (f: Float32Array, n: number, h: number): Bf16Rows => ({ data: float32ArrayToBf16(f), rowCount: n, hiddenSize: h });

function meanMismatchRate(rows: Bf16Rows, proofs: string[], p: ProofParams): number {
  const res = verifyProofs(rows, proofs, p);
  return res.reduce((a, r) => a + r.expMismatches, 0) / (res.length * p.topk);
}

describe('proof properties', () => {
  const shapes: [number, number, ProofParams][] = [
    [70, 256, { topk: 128, decodeBatchingSize: 32, skipPrefill: true }],
    [40, 64, { topk: 16, decodeBatchingSize: 8, skipPrefill: true }],
    [33, 1024, { topk: 64, decodeBatchingSize: 32, skipPrefill: true }],
  ];

  it('rows built then verified on themselves give zero mismatches and zero error', () => {
    shapes.forEach(([n, h, p], i) => {
      const rows = rowsOf(f32Rows(rng(100 + i), n, h), n, h);
      const proofs = buildProofs(rows, p);
      expect(proofs.length).toBe(Math.ceil(n / p.decodeBatchingSize));
      for (const r of verifyProofs(rows, proofs, p)) expect(r).toEqual({ expMismatches: 0, mantErrMean: 0, mantErrMedian: 0, failure: null });
    });
  });

  it('holds on tie-heavy data too, where the selection decides the set', () => {
    const r = rng(7);
    const n = 64;
    const h = 512;
    const f = new Float32Array(n * h);
    for (let i = 0; i < f.length; i++) f[i] = [0.5, -0.5, 1, -1, 2, 3][Math.floor(r() * 6)]! * (r() < 0.001 ? 8 : 1);
    const rows = rowsOf(f, n, h);
    const p = { topk: 128, decodeBatchingSize: 32, skipPrefill: true };
    for (const res of verifyProofs(rows, buildProofs(rows, p), p)) expect(res.expMismatches).toBe(0);
  });

  it('small perturbations give small errors, int4 quantisation large ones', () => {
    const n = 96;
    const h = 2048;
    const p = { topk: 128, decodeBatchingSize: 32, skipPrefill: true };
    const f = f32Rows(rng(42), n, h);
    const proofs = buildProofs(rowsOf(f, n, h), p);
    const r = rng(43);
    const tiny = new Float32Array(f.map((x) => x * (1 + 0.002 * gaussian(r))));
    const tinyRes = verifyProofs(rowsOf(tiny, n, h), proofs, p);
    const int4 = new Float32Array(f.length);
    for (let row = 0; row < n; row++) {
      let max = 0;
      for (let j = 0; j < h; j++) max = Math.max(max, Math.abs(f[row * h + j]!));
      const s = max / 7;
      for (let j = 0; j < h; j++) int4[row * h + j] = Math.min(7, Math.max(-8, Math.round(f[row * h + j]! / s))) * s;
    }
    const tinyRate = meanMismatchRate(rowsOf(tiny, n, h), proofs, p);
    const int4Rate = meanMismatchRate(rowsOf(int4, n, h), proofs, p);
    expect(tinyRate).toBeLessThan(0.1);
    for (const res of tinyRes) expect(res.mantErrMean).toBeLessThan(2);
    expect(int4Rate).toBeGreaterThan(0.3);
    expect(int4Rate).toBeGreaterThan(5 * tinyRate);
  });

  it('a null, malformed or misplaced proof is a failed chunk, never a crash', () => {
    const n = 40;
    const h = 64;
    const p = { topk: 16, decodeBatchingSize: 8, skipPrefill: true };
    const rows = rowsOf(f32Rows(rng(5), n, h), n, h);
    const good = buildProofs(rows, p);
    const res = verifyProofs(rows, [proofToBase64(nullProof(16)), 'not base64!', 'AQ==', '/9g=', good[4]!, null, good[0]!], p);
    expect(res.map((r) => r.failure)).toEqual(['null-proof', 'malformed-proof', 'malformed-proof', 'malformed-proof', null, 'malformed-proof', 'missing-chunk']);
    for (const r of res.filter((x) => x.failure)) expect(r.expMismatches).toBe(16);
    expect(res[4]!.expMismatches).toBe(0);
    const short = verifyProofs({ data: rows.data.subarray(0, 3 * h), rowCount: 3, hiddenSize: h }, good, { ...p, topk: 256 });
    expect(short[0]!.failure).toBe('short-chunk');
  });

  it('returns the reference number of null proofs when a chunk is shorter than topk', () => {
    const rows = rowsOf(f32Rows(rng(6), 33, 64), 33, 64);
    const p = { topk: 128, decodeBatchingSize: 32, skipPrefill: true };
    const proofs = buildProofPolys(rows, p);
    expect(proofs.length).toBe(1 + Math.floor((33 - 1 + 32) / 32));
    expect(proofs.every((x) => x.modulus === 0 && x.coeffs.length === 128 && x.coeffs.every((c) => c === 0))).toBe(true);
  });

  it('serialises and decodes proofs losslessly', () => {
    const rows = rowsOf(f32Rows(rng(8), 64, 512), 64, 512);
    for (const poly of buildProofPolys(rows, { topk: 128, decodeBatchingSize: 32, skipPrefill: true })) {
      const back = proofFromBase64(proofToBase64(poly));
      expect(back.modulus).toBe(poly.modulus);
      expect(Array.from(back.coeffs)).toEqual(Array.from(poly.coeffs));
    }
  });

  it('top-k picks k elements no smaller in magnitude than any left out, NaN first', () => {
    const r = rng(9);
    const sel = new TopkSelector();
    for (let t = 0; t < 60; t++) {
      const n = 50 + Math.floor(r() * 3000);
      const k = 1 + Math.floor(r() * Math.min(n, 200));
      const bits = new Uint16Array(n);
      for (let i = 0; i < n; i++) bits[i] = r() < 0.01 ? 0x7fc1 : r() < 0.5 ? Math.floor(r() * 0x7f80) | (r() < 0.5 ? 0x8000 : 0) : 0x3f80 + Math.floor(r() * 4);
      const out = new Int32Array(k);
      sel.select(bits, 0, n, k, out);
      const key = (b: number): number => ((b & 0x7fff) > 0x7f80 ? 0x8000 : b & 0x7fff);
      const chosen = new Set(out);
      expect(chosen.size).toBe(k);
      let minIn = Infinity;
      let maxOut = -Infinity;
      for (let i = 0; i < n; i++) {
        if (chosen.has(i)) minIn = Math.min(minIn, key(bits[i]!));
        else maxOut = Math.max(maxOut, key(bits[i]!));
      }
      expect(minIn).toBeGreaterThanOrEqual(maxOut);
    }
  });
});
