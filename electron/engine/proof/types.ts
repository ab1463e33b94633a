// Shapes shared by the proof engine's build, verify, parser and worker pool.

/** bf16 bit patterns, row-major: rowCount rows of hiddenSize elements in one flat buffer. */
export interface Bf16Rows {
  data: Uint16Array;
  rowCount: number;
  hiddenSize: number;
}

export interface ProofParams {
  topk: number;
  decodeBatchingSize: number;
  /**
   * true: chunks are rows [0..B), [B..2B), ... (what the miner sends). false: chunk 0 is the
   * flattened prefill block given separately, decode rows are batched after it.
   */
  skipPrefill: boolean;
}

/** The miner's parameters (PROTOCOL.md section 4.7). */
export const MINER_PROOF_PARAMS: ProofParams = Object.freeze({ topk: 128, decodeBatchingSize: 32, skipPrefill: true });

/** Why a chunk could not be checked at all; such a chunk counts as failed, never as a crash. */
export type VerifyFailure =
  | 'null-proof' // modulus 0: the prover could not build proofs
  | 'malformed-proof' // not decodable, or no coefficients
  | 'short-chunk' // fewer than topk elements in the verifier's chunk
  | 'missing-chunk'; // more proofs than chunks

export interface ChunkVerification {
  expMismatches: number;
  mantErrMean: number;
  mantErrMedian: number;
  failure: VerifyFailure | null;
}

export function checkProofParams(p: ProofParams): void {
  if (!Number.isInteger(p.topk) || p.topk < 1) throw new RangeError(`topk must be a positive integer, got ${p.topk}`);
  if (!Number.isInteger(p.decodeBatchingSize) || p.decodeBatchingSize < 1) throw new RangeError(`decodeBatchingSize must be a positive integer, got ${p.decodeBatchingSize}`);
}
