// build_proofs of the reference TOPLOC (toploc/poly.py at 7ab7bcd), on bf16 rows.
import { nullProof, proofFromPoints, proofToBase64, type ProofPoly } from './proof-poly.ts';
import { TopkSelector } from './topk.ts';
import { checkProofParams, type Bf16Rows, type ProofParams } from './types.ts';

/** A contiguous run of bf16 elements that one proof covers. */
interface Chunk {
  data: Uint16Array;
  start: number;
  length: number;
}

/** The reference's chunking: optional prefill block first, then decode rows in batches. */
export function proofChunks(rows: Bf16Rows, params: ProofParams, prefill?: Uint16Array): Chunk[] {
  const chunks: Chunk[] = [];
  if (!params.skipPrefill) {
    if (!prefill) throw new TypeError('skipPrefill false needs the flattened prefill block');
    chunks.push({ data: prefill, start: 0, length: prefill.length });
  }
  const h = rows.hiddenSize;
  if (rows.rowCount * h > rows.data.length) throw new RangeError(`rows hold ${rows.data.length} values, fewer than ${rows.rowCount} x ${h}`);
  for (let r = 0; r < rows.rowCount; r += params.decodeBatchingSize) {
    const end = Math.min(r + params.decodeBatchingSize, rows.rowCount);
    chunks.push({ data: rows.data, start: r * h, length: (end - r) * h });
  }
  return chunks;
}

/**
 * Proof polynomials for the rows. Like the reference, when any chunk cannot be proven (fewer than
 * topk elements) every proof is a null proof, as many as the reference would return.
 */
export function buildProofPolys(rows: Bf16Rows, params: ProofParams, prefill?: Uint16Array): ProofPoly[] {
  checkProofParams(params);
  const k = params.topk;
  const chunks = proofChunks(rows, params, prefill);
  const selector = new TopkSelector();
  const x = new Int32Array(k);
  const y = new Int32Array(k);
  const proofs: ProofPoly[] = [];
  for (const c of chunks) {
    if (c.length < k) {
      const activations = rows.rowCount + (params.skipPrefill ? 0 : 1);
      const count = 1 + Math.floor((activations - 1 + params.decodeBatchingSize) / params.decodeBatchingSize);
      return Array.from({ length: count }, () => nullProof(k));
    }
    selector.select(c.data, c.start, c.length, k, x);
    for (let i = 0; i < k; i++) y[i] = c.data[c.start + x[i]!]!;
    proofs.push(proofFromPoints(x, y));
  }
  return proofs;
}

/** build_proofs_base64: what goes into the commitment's `toploc.proofs`. */
export function buildProofs(rows: Bf16Rows, params: ProofParams, prefill?: Uint16Array): string[] {
  return buildProofPolys(rows, params, prefill).map(proofToBase64);
}
