// Public API of the proof engine: TOPLOC build/verify byte-compatible with the reference, bf16
// conversion, the incremental /generate body parser and the worker pool.
export { f32BitsToBf16, float64ToBf16, float64ToF32Bits, float32ArrayToBf16, bf16ToFloat } from './bf16.ts';
export { TopkSelector } from './topk.ts';
export { FIELD_PRIME, injectiveModulus, interpolate, evaluatePolynomial, InterpolationError } from './field.ts';
export { type ProofPoly, ProofFormatError, nullProof, proofFromPoints, proofToBytes, proofToBase64, proofFromBytes, proofFromBase64 } from './proof-poly.ts';
export { buildProofs, buildProofPolys } from './build.ts';
export { keptRowCount, StreamingProver } from './stream-proof.ts';
export { verifyProofs, type VerifyOptions, type VerifySemantics } from './verify.ts';
export { generateXorshiftRows, isXorshiftRowsSpec, type XorshiftRowsSpec } from './rows-generator.ts';
export { MINER_PROOF_PARAMS, type Bf16Rows, type ProofParams, type ChunkVerification, type VerifyFailure } from './types.ts';
export { GenerateBodyParser, type GenerateBody, type GenerateParserOptions, type FinishReason } from './generate-parser.ts';
export { GenerateBodyError, NO_HIDDEN_STATES_MESSAGE } from './body-error.ts';
export { ProofPool, ParseJob, type ProofPoolOptions, type ParseJobOptions, type ParsedGeneration } from './proof-pool.ts';
