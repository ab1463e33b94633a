import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  buildProofs,
  evaluatePolynomial,
  float32ArrayToBf16,
  float64ToBf16,
  float64ToF32Bits,
  f32BitsToBf16,
  generateXorshiftRows,
  isXorshiftRowsSpec,
  proofFromBase64,
  proofFromPoints,
  proofToBase64,
  proofToBytes,
  TopkSelector,
  verifyProofs,
} from '../../../electron/engine/proof/index.ts';
import { base64ToFloat32, base64ToUint16, loadToplocVectors, type BuildCase, type VerifyCase, type VerifyResultJson } from '../../helpers/toploc-fixtures.ts';

const sha256 = (a: ArrayBufferView): string =>
  createHash('sha256')
    .update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength))
    .digest('hex');
const hex = (n: number, width: number): string => '0x' + n.toString(16).padStart(width, '0');

describe('bf16 conversion vectors', () => {
  const v = loadToplocVectors<{
    values: { f32: string; bf16: string; cat: string }[];
    json_text: { text: string; f64: string; f32: string; bf16: string; cat: string }[];
  }>('bf16_conversion');

  it('converts every float32 bit pattern as the miner does (scalar and array paths)', () => {
    const src = new Uint32Array(v.values.length);
    v.values.forEach((c, i) => (src[i] = Number(c.f32)));
    const arr = float32ArrayToBf16(new Float32Array(src.buffer));
    v.values.forEach((c, i) => {
      expect(hex(f32BitsToBf16(Number(c.f32)), 4), `${c.cat} ${c.f32}`).toBe(c.bf16);
      expect(hex(arr[i]!, 4), `${c.cat} ${c.f32}`).toBe(c.bf16);
    });
  });

  it('rounds JSON number text to float64, then float32, then bf16', () => {
    for (const c of v.json_text) {
      // Python's json turns the integer literal -0 into int 0 (+0); the parser handles that case.
      const x = c.text === '-0' ? 0 : Number(c.text);
      expect(hex(float64ToF32Bits(x), 8), c.text).toBe(c.f32);
      expect(hex(float64ToBf16(x), 4), c.text).toBe(c.bf16);
    }
  });
});

describe('ProofPoly vectors', () => {
  const v = loadToplocVectors<{
    cases: { id: string; x: number[]; y: number[]; modulus: number; coeffs: number[]; to_base64: string; to_bytes_hex: string; eval_x: number[]; eval_y: number[] }[];
    errors: { id: string; x: number[]; y: number[]; error: string }[];
    decodes: { id: string; base64: string; modulus?: number; coeffs?: number[]; error?: string }[];
  }>('proofpoly');

  it('finds the modulus, interpolates, serialises and evaluates like the reference', () => {
    for (const c of v.cases) {
      const p = proofFromPoints(c.x, c.y);
      expect(p.modulus, c.id).toBe(c.modulus);
      expect(Array.from(p.coeffs), c.id).toEqual(c.coeffs);
      expect(proofToBase64(p), c.id).toBe(c.to_base64);
      expect(Buffer.from(proofToBytes(p)).toString('hex'), c.id).toBe(c.to_bytes_hex);
      expect(
        c.eval_x.map((x) => evaluatePolynomial(p.coeffs, x)),
        c.id,
      ).toEqual(c.eval_y);
    }
  });

  it('rejects the inputs the reference rejects, with its message', () => {
    for (const c of v.errors) expect(() => proofFromPoints(c.x, c.y), c.id).toThrow(c.error);
  });

  it('decodes base64 with the reference edge cases', () => {
    for (const d of v.decodes) {
      if (d.error) {
        expect(() => proofFromBase64(d.base64), d.id).toThrow(d.error);
        continue;
      }
      const p = proofFromBase64(d.base64);
      expect(p.modulus, d.id).toBe(d.modulus);
      expect(Array.from(p.coeffs), d.id).toEqual(d.coeffs);
    }
  });
});

function buildInputs(c: BuildCase): { rows: Uint16Array; prefill?: Uint16Array } {
  let f32: Float32Array;
  if (c.rows_f32_b64 !== undefined) f32 = base64ToFloat32(c.rows_f32_b64);
  else if (isXorshiftRowsSpec(c.rows_generator)) f32 = generateXorshiftRows(c.rows_generator);
  else throw new Error(`case ${c.id} has no rows`);
  expect(sha256(f32), c.id).toBe(c.rows_f32_sha256);
  const rows = float32ArrayToBf16(f32);
  expect(sha256(rows), c.id).toBe(c.rows_bf16_sha256);
  if (c.prefill_block_f32_b64 === undefined) return { rows };
  const prefill = float32ArrayToBf16(base64ToFloat32(c.prefill_block_f32_b64));
  expect(sha256(prefill), c.id).toBe(c.prefill_block_bf16_sha256);
  return { rows, prefill };
}

describe('build_proofs vectors', () => {
  const v = loadToplocVectors<{ cases: BuildCase[] }>('build_proofs');

  for (const c of v.cases) {
    it(`${c.id}: proofs byte for byte`, () => {
      const { rows, prefill } = buildInputs(c);
      const params = { topk: c.topk, decodeBatchingSize: c.decode_batching_size, skipPrefill: c.skip_prefill };
      const got = buildProofs({ data: rows, rowCount: c.n_tokens, hiddenSize: c.hidden_size }, params, prefill);
      expect(got).toEqual(c.proofs_base64);
    });
  }

  it('selects the same top-k sets as torch on every chunk, on both selection paths', () => {
    const selector = new TopkSelector();
    let paths = new Set<string>();
    for (const c of v.cases) {
      const { rows, prefill } = buildInputs(c);
      let offset = 0;
      c.chunks.forEach((ch, i) => {
        const data = !c.skip_prefill && i === 0 ? prefill! : rows;
        const start = !c.skip_prefill && i === 0 ? 0 : offset;
        const out = new Int32Array(c.topk);
        selector.select(data, start, ch.flat_len, c.topk, out);
        expect(
          Array.from(out).sort((a, b) => a - b),
          `${c.id} chunk ${i}`,
        ).toEqual([...ch.topk_indices_torch_order].sort((a, b) => a - b));
        if (data === rows) offset += ch.flat_len;
        paths = paths.add(ch.topk_path);
      });
    }
    expect([...paths].sort()).toEqual(['nth_element', 'partial_sort']);
  });
});

describe('verify_proofs vectors', () => {
  const v = loadToplocVectors<{ cases: VerifyCase[] }>('verify_proofs');
  const asJson = (r: { expMismatches: number; mantErrMean: number; mantErrMedian: number }): VerifyResultJson => ({
    exp_mismatches: r.expMismatches,
    mant_err_mean: r.mantErrMean,
    mant_err_median: r.mantErrMedian,
  });

  for (const c of v.cases) {
    it(`${c.id}: results of both reference paths`, () => {
      const rows = { data: base64ToUint16(c.activations_bf16_b64), rowCount: c.n_tokens, hiddenSize: c.hidden_size };
      const prefill = c.prefill_block_bf16_b64 === undefined ? undefined : base64ToUint16(c.prefill_block_bf16_b64);
      const params = { topk: c.topk, decodeBatchingSize: c.decode_batching_size, skipPrefill: c.skip_prefill };
      const cpp = verifyProofs(rows, c.proofs_base64, params, prefill);
      if (c.results_cpp_tensor_path) expect(cpp.map(asJson)).toEqual(c.results_cpp_tensor_path);
      if (c.perturbation === 'null_proofs') {
        expect(cpp.every((r) => r.failure === 'null-proof')).toBe(true);
        expect(cpp.map(asJson)).toEqual(c.results_python_list_path);
      } else {
        const py = verifyProofs(rows, c.proofs_base64, { ...params, semantics: 'python' }, prefill);
        expect(py.map(asJson)).toEqual(c.results_python_list_path);
        expect(cpp.every((r) => r.failure === null)).toBe(true);
      }
    });
  }
});
