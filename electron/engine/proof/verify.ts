// verify_proofs of the reference TOPLOC. The C++ path (a 2-D tensor with skip_prefill) is the one
// the network uses: it evaluates the proof at index % modulus and takes the UPPER middle value as
// the median. The Python list path (raw index, mean of the two middles) is kept for comparison.
// Neither looks at the sign bit. Unusable proofs and chunks fail instead of crashing.
import { proofChunks } from './build.ts';
import { evaluatePolynomial } from './field.ts';
import { proofFromBase64, type ProofPoly } from './proof-poly.ts';
import { TopkSelector } from './topk.ts';
import { checkProofParams, type Bf16Rows, type ChunkVerification, type ProofParams, type VerifyFailure } from './types.ts';

export type VerifySemantics = 'cpp' | 'python';

export interface VerifyOptions extends ProofParams {
  /** Default 'cpp', the path that matters. */
  semantics?: VerifySemantics;
}

/** Both statistics are 2^64 when no exponent matches, as in the reference. */
const NO_MATCH = 2 ** 64;

function failed(k: number, failure: VerifyFailure): ChunkVerification {
  return { expMismatches: k, mantErrMean: NO_MATCH, mantErrMedian: NO_MATCH, failure };
}

function decode(proof: string | ProofPoly | null): ProofPoly | VerifyFailure {
  if (proof === null) return 'malformed-proof';
  if (typeof proof !== 'string') return proof;
  try {
    return proofFromBase64(proof);
  } catch {
    return 'malformed-proof';
  }
}

export function verifyProofs(rows: Bf16Rows, proofs: readonly (string | ProofPoly | null)[], options: VerifyOptions, prefill?: Uint16Array): ChunkVerification[] {
  checkProofParams(options);
  const k = options.topk;
  const python = options.semantics === 'python';
  const chunks = proofChunks(rows, options, prefill);
  const selector = new TopkSelector();
  const idx = new Int32Array(k);
  const hist = new Int32Array(128);
  return proofs.map((raw, p) => {
    const proof = decode(raw);
    if (typeof proof === 'string') return failed(k, proof);
    if (proof.modulus === 0) return failed(k, 'null-proof');
    if (proof.coeffs.length === 0) return failed(k, 'malformed-proof');
    const chunk = chunks[p];
    if (!chunk) return failed(k, 'missing-chunk');
    if (chunk.length < k) return failed(k, 'short-chunk');
    selector.select(chunk.data, chunk.start, chunk.length, k, idx);
    hist.fill(0);
    let mismatches = 0;
    let count = 0;
    let sum = 0;
    for (let i = 0; i < k; i++) {
      const at = idx[i]!;
      const claimed = evaluatePolynomial(proof.coeffs, python ? at : at % proof.modulus) & 0xffff;
      const actual = chunk.data[chunk.start + at]!;
      if ((claimed & 0x7f80) !== (actual & 0x7f80)) {
        mismatches++;
        continue;
      }
      const err = Math.abs((claimed & 0x7f) - (actual & 0x7f));
      hist[err]!++;
      sum += err;
      count++;
    }
    if (count === 0) return { expMismatches: mismatches, mantErrMean: NO_MATCH, mantErrMedian: NO_MATCH, failure: null };
    const median = python && count % 2 === 0 ? (nthOf(hist, count / 2 - 1) + nthOf(hist, count / 2)) / 2 : nthOf(hist, count >> 1);
    return { expMismatches: mismatches, mantErrMean: sum / count, mantErrMedian: median, failure: null };
  });
}

/** The n-th smallest (0-based) value recorded in a histogram of small integers. */
function nthOf(hist: Int32Array, n: number): number {
  let seen = 0;
  for (let v = 0; v < hist.length; v++) {
    seen += hist[v]!;
    if (seen > n) return v;
  }
  return hist.length - 1;
}
