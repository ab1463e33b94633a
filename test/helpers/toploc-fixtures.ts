// Loads the TOPLOC golden vectors copied into test/fixtures/toploc/ (see its README.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'toploc');

export function loadToplocVectors<T>(name: 'bf16_conversion' | 'build_proofs' | 'proofpoly' | 'verify_proofs'): T {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as T;
}

export function base64ToFloat32(b64: string): Float32Array {
  const buf = Buffer.from(b64, 'base64');
  const copy = new Uint8Array(buf.length);
  copy.set(buf);
  return new Float32Array(copy.buffer);
}

export function base64ToUint16(b64: string): Uint16Array {
  const buf = Buffer.from(b64, 'base64');
  const copy = new Uint8Array(buf.length);
  copy.set(buf);
  return new Uint16Array(copy.buffer);
}

export interface BuildCase {
  id: string;
  hidden_size: number;
  n_tokens: number;
  topk: number;
  decode_batching_size: number;
  skip_prefill: boolean;
  rows_f32_b64?: string;
  rows_generator?: unknown;
  rows_f32_sha256: string;
  rows_bf16_sha256: string;
  prefill_block_shape?: [number, number];
  prefill_block_f32_b64?: string;
  prefill_block_bf16_sha256?: string;
  proofs_base64: string[];
  error_path_null_proofs: boolean;
  chunks: { flat_len: number; topk_path: string; topk_indices_torch_order: number[]; modulus: number }[];
}

export interface VerifyResultJson {
  exp_mismatches: number;
  mant_err_mean: number;
  mant_err_median: number;
}

export interface VerifyCase {
  id: string;
  perturbation: string;
  hidden_size: number;
  n_tokens: number;
  topk: number;
  decode_batching_size: number;
  skip_prefill: boolean;
  proofs_base64: string[];
  activations_bf16_b64: string;
  prefill_block_shape?: [number, number];
  prefill_block_bf16_b64?: string;
  results_cpp_tensor_path: VerifyResultJson[] | null;
  results_python_list_path: VerifyResultJson[] | null;
  verifier_chunks: { topk_indices_torch_order: number[] }[];
}
