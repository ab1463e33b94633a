// `engy-panel toploc build|verify|bf16`: the proof engine on the golden vectors' JSON formats, so
// any case can be checked against the reference from a shell.
import type { CliCommand } from './types.ts';
import { readStdin } from './types.ts';
import { flagString, parseArgs } from './args.ts';
import {
  buildProofs,
  f32BitsToBf16,
  float32ArrayToBf16,
  generateXorshiftRows,
  isXorshiftRowsSpec,
  verifyProofs,
  type ProofParams,
  type VerifySemantics,
} from '../engine/proof/index.ts';

const USAGE = `usage: engy-panel toploc <command> < case.json
  build    a case in build_proofs.json's format (rows_f32_b64 or rows_generator) -> {"proofs_base64": [...]}
  verify   a case in verify_proofs.json's format -> {"results": [{"exp_mismatches", "mant_err_mean", "mant_err_median"}, ...]}
           (--semantics cpp|python; default: cpp with skip_prefill, python without, as the reference)
  bf16     {"f32": ["0x3f800000", ...]} -> {"bf16": ["0x3f80", ...]}
`;

class InputError extends Error {}

function bytesOf(b64: unknown, what: string): Uint8Array {
  if (typeof b64 !== 'string') throw new InputError(`${what} is missing`);
  const buf = Buffer.from(b64, 'base64');
  const copy = new Uint8Array(buf.length);
  copy.set(buf);
  return copy;
}

function int(c: Record<string, unknown>, name: string): number {
  const v = c[name];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new InputError(`${name} must be a non-negative integer`);
  return v;
}

function params(c: Record<string, unknown>): ProofParams {
  return { topk: int(c, 'topk'), decodeBatchingSize: int(c, 'decode_batching_size'), skipPrefill: c['skip_prefill'] !== false };
}

function f32Rows(c: Record<string, unknown>): Float32Array {
  if (c['rows_f32_b64'] !== undefined) {
    const b = bytesOf(c['rows_f32_b64'], 'rows_f32_b64');
    if (b.length % 4 !== 0) throw new InputError('rows_f32_b64 is not whole float32 values');
    return new Float32Array(b.buffer, 0, b.length / 4);
  }
  if (isXorshiftRowsSpec(c['rows_generator'])) return generateXorshiftRows(c['rows_generator']);
  throw new InputError('the case needs rows_f32_b64 or a rows_generator of kind xorshift32');
}

function build(c: Record<string, unknown>): unknown {
  const p = params(c);
  const h = int(c, 'hidden_size');
  const rows = float32ArrayToBf16(f32Rows(c));
  if (rows.length !== int(c, 'n_tokens') * h) throw new InputError('rows do not hold n_tokens x hidden_size values');
  let prefill: Uint16Array | undefined;
  if (!p.skipPrefill) {
    const b = bytesOf(c['prefill_block_f32_b64'], 'prefill_block_f32_b64 (needed when skip_prefill is false)');
    prefill = float32ArrayToBf16(new Float32Array(b.buffer, 0, Math.floor(b.length / 4)));
  }
  return { proofs_base64: buildProofs({ data: rows, rowCount: int(c, 'n_tokens'), hiddenSize: h }, p, prefill) };
}

function u16(b: Uint8Array): Uint16Array {
  return new Uint16Array(b.buffer, 0, Math.floor(b.length / 2));
}

function verify(c: Record<string, unknown>, semantics: string | undefined): unknown {
  const p = params(c);
  const h = int(c, 'hidden_size');
  const data = u16(bytesOf(c['activations_bf16_b64'], 'activations_bf16_b64'));
  if (data.length !== int(c, 'n_tokens') * h) throw new InputError('activations do not hold n_tokens x hidden_size values');
  const proofs = c['proofs_base64'];
  if (!Array.isArray(proofs)) throw new InputError('proofs_base64 must be a list');
  const prefill = p.skipPrefill ? undefined : u16(bytesOf(c['prefill_block_bf16_b64'], 'prefill_block_bf16_b64'));
  if (semantics !== undefined && semantics !== 'cpp' && semantics !== 'python') throw new InputError('--semantics is cpp or python');
  const sem: VerifySemantics = (semantics as VerifySemantics | undefined) ?? (p.skipPrefill ? 'cpp' : 'python');
  const results = verifyProofs(
    { data, rowCount: int(c, 'n_tokens'), hiddenSize: h },
    proofs.map((x) => (typeof x === 'string' ? x : null)),
    { ...p, semantics: sem },
    prefill,
  );
  return {
    results: results.map((r) => ({ exp_mismatches: r.expMismatches, mant_err_mean: r.mantErrMean, mant_err_median: r.mantErrMedian })),
  };
}

function bf16(c: Record<string, unknown>): unknown {
  const list = c['f32'];
  if (!Array.isArray(list)) throw new InputError('f32 must be a list of hex bit patterns');
  return {
    bf16: list.map((x) => {
      const u = typeof x === 'string' && /^0x[0-9a-fA-F]{1,8}$/.test(x) ? Number(x) : typeof x === 'number' ? x : NaN;
      if (!Number.isInteger(u)) throw new InputError(`not a float32 bit pattern: ${JSON.stringify(x)}`);
      return '0x' + f32BitsToBf16(u).toString(16).padStart(4, '0');
    }),
  };
}

export const run: CliCommand = async (args, io) => {
  const p = parseArgs(args);
  const cmd = p.positionals[0];
  if (cmd !== 'build' && cmd !== 'verify' && cmd !== 'bf16') {
    io.stderr(USAGE);
    return 2;
  }
  try {
    const input: unknown = JSON.parse(await readStdin(io.stdin));
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new InputError('stdin must hold one JSON object');
    const c = input as Record<string, unknown>;
    const out = cmd === 'build' ? build(c) : cmd === 'verify' ? verify(c, flagString(p, 'semantics')) : bf16(c);
    io.stdout(JSON.stringify(out) + '\n');
    return 0;
  } catch (e) {
    if (e instanceof InputError || e instanceof SyntaxError) {
      io.stderr(`toploc ${cmd}: ${e.message}. Give one case object as in the golden vectors on stdin.\n`);
      return 2;
    }
    throw e;
  }
};
