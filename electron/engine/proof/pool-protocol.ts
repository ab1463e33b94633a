// Messages between ProofPool (caller's thread) and proof-worker.ts. Buffers travel as transfers.
import type { GenerateBody } from './generate-parser.ts';
import type { Bf16Rows, ChunkVerification, ProofParams } from './types.ts';
import type { VerifyOptions } from './verify.ts';

export type ToWorker =
  /** text: whether the caller listens for text deltas (each one is a message to its thread). */
  /** proveAsParsed: proofs built batch by batch as rows are parsed, the rows never kept (takes the place of prove). */
  | { type: 'open'; id: number; format: 'auto' | 'json' | 'sse'; prove: ProofParams | null; proveAsParsed: ProofParams | null; text: boolean; expectRows: number }
  | { type: 'chunk'; id: number; bytes: Uint8Array }
  | { type: 'end'; id: number }
  | { type: 'abort'; id: number }
  | { type: 'build'; id: number; rows: Bf16Rows; params: ProofParams; prefill: Uint16Array | null }
  | { type: 'verify'; id: number; rows: Bf16Rows; proofs: (string | null)[]; options: VerifyOptions; prefill: Uint16Array | null };

export interface ParsedGeneration {
  body: GenerateBody;
  /**
   * The proofs over body.rows when the job asked for them (prove), or over its kept rows, built as
   * they were parsed (proveAsParsed: body.rows then holds no values); null otherwise.
   */
  proofs: string[] | null;
}

export type FromWorker =
  | { type: 'text'; id: number; delta: string }
  | { type: 'consumed'; id: number; bytes: number }
  | { type: 'parsed'; id: number; result: ParsedGeneration }
  | { type: 'built'; id: number; proofs: string[] }
  | { type: 'verified'; id: number; results: ChunkVerification[] }
  | { type: 'error'; id: number; name: string; message: string };
