// `engy-panel toploc build|verify|bf16`: the proof engine on the golden vectors' JSON formats, so
// any case can be checked against the reference from a shell.
import type { CliCommand } from './types.ts';
import { readStdin } from './types.ts';
import { defineCommand, parseCommand, pickSubcommand } from './args.ts';
import { cliCommand } from './run-command.ts';
import { buildProofs, f32BitsToBf16, float32ArrayToBf16, generateXorshiftRows, isXorshiftRowsSpec, verifyProofs, type ProofParams, type VerifySemantics } from '../engine/proof/index.ts';

const USAGE = `usage: engy-panel toploc <command> < case.json
  build    a case in build_proofs.json's format (rows_f32_b64 or rows_generator) -> {"proofs_base64": [...]}
  verify   a case in verify_proofs.json's format -> {"results": [{"exp_mismatches", "mant_err_mean", "mant_err_median"}, ...]}
           (--semantics cpp|python; default: cpp with skip_prefill, python without, as the reference)
  bf16     {"f32": ["0x3f800000", ...]} -> {"bf16": ["0x3f80", ...]}
`;

const SUBCOMMANDS = ['build', 'verify', 'bf16'] as const;
const PLAIN = defineCommand({ usage: USAGE, options: {} });
const VERIFY = defineCommand({ usage: USAGE, options: { semantics: { kind: 'string', choices: ['cpp', 'python'] } } });

/** Rows x hidden values one case may hold (1 GiB of float32): past it the case is refused, not allocated. */
const MAX_VALUES = 1 << 28;

class InputError extends Error {}

function bytesOf(b64: unknown, what: string): Uint8Array {
  if (typeof b64 !== 'string') throw new InputError(`${what} is missing`);
  const buf = Buffer.from(b64, 'base64');
  const copy = new Uint8Array(buf.length);
  copy.set(buf);
  return copy;
}

function int(c: Record<string, unknown>, name: string, min = 0): number {
  const v = Object.hasOwn(c, name) ? c[name] : undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw new InputError(`${name} must be a whole number of at least ${min}, got ${JSON.stringify(v) ?? 'nothing'}`);
  return v;
}

/** The shape of a case, checked before anything is allocated: sizes that fit, a topk a chunk can hold. */
function shape(c: Record<string, unknown>): { p: ProofParams; h: number; n: number } {
  const h = int(c, 'hidden_size', 1);
  const n = int(c, 'n_tokens', 1);
  if (n * h > MAX_VALUES) throw new InputError(`n_tokens x hidden_size is ${n * h} values, more than the ${MAX_VALUES} one case may hold`);
  const batch = int(c, 'decode_batching_size', 1);
  const topk = int(c, 'topk', 1);
  // A chunk holds at most decode_batching_size rows: a larger topk could never be proven.
  if (topk > h * batch) throw new InputError(`topk ${topk} is more than a chunk holds (hidden_size ${h} x decode_batching_size ${batch})`);
  return { p: { topk, decodeBatchingSize: batch, skipPrefill: c['skip_prefill'] !== false }, h, n };
}

function f32Rows(c: Record<string, unknown>): Float32Array {
  if (c['rows_f32_b64'] !== undefined) {
    const b = bytesOf(c['rows_f32_b64'], 'rows_f32_b64');
    if (b.length % 4 !== 0) throw new InputError('rows_f32_b64 is not whole float32 values');
    return new Float32Array(b.buffer, 0, b.length / 4);
  }
  const gen = c['rows_generator'];
  if (isXorshiftRowsSpec(gen)) {
    const size = gen.n_tokens * gen.hidden_size;
    if (!Number.isSafeInteger(gen.n_tokens) || !Number.isSafeInteger(gen.hidden_size) || gen.n_tokens < 1 || gen.hidden_size < 1 || size > MAX_VALUES) {
      throw new InputError(`rows_generator wants whole n_tokens and hidden_size of at least 1 and at most ${MAX_VALUES} values in all`);
    }
    return generateXorshiftRows(gen);
  }
  throw new InputError('the case needs rows_f32_b64 or a rows_generator of kind xorshift32');
}

function build(c: Record<string, unknown>): unknown {
  const { p, h, n } = shape(c);
  const rows = float32ArrayToBf16(f32Rows(c));
  if (rows.length !== n * h) throw new InputError(`rows hold ${rows.length} values, not n_tokens x hidden_size = ${n * h}`);
  let prefill: Uint16Array | undefined;
  if (!p.skipPrefill) {
    const b = bytesOf(c['prefill_block_f32_b64'], 'prefill_block_f32_b64 (needed when skip_prefill is false)');
    if (b.length === 0 || b.length % (4 * h) !== 0)
      throw new InputError(`prefill_block_f32_b64 holds ${b.length} bytes: it must be whole rows of hidden_size ${h} float32 values (${4 * h} bytes each)`);
    prefill = float32ArrayToBf16(new Float32Array(b.buffer, 0, b.length / 4));
  }
  return { proofs_base64: buildProofs({ data: rows, rowCount: n, hiddenSize: h }, p, prefill) };
}

function u16(b: Uint8Array): Uint16Array {
  return new Uint16Array(b.buffer, 0, Math.floor(b.length / 2));
}

function verify(c: Record<string, unknown>, semantics: string | undefined): unknown {
  const { p, h, n } = shape(c);
  const data = u16(bytesOf(c['activations_bf16_b64'], 'activations_bf16_b64'));
  if (data.length !== n * h) throw new InputError(`activations hold ${data.length} values, not n_tokens x hidden_size = ${n * h}`);
  const proofs = c['proofs_base64'];
  if (!Array.isArray(proofs)) throw new InputError('proofs_base64 must be a list');
  const prefillBytes = p.skipPrefill ? undefined : bytesOf(c['prefill_block_bf16_b64'], 'prefill_block_bf16_b64');
  if (prefillBytes && (prefillBytes.length === 0 || prefillBytes.length % (2 * h) !== 0)) {
    throw new InputError(`prefill_block_bf16_b64 holds ${prefillBytes.length} bytes: it must be whole rows of hidden_size ${h} bf16 values (${2 * h} bytes each)`);
  }
  const prefill = prefillBytes ? u16(prefillBytes) : undefined;
  const sem: VerifySemantics = (semantics as VerifySemantics | undefined) ?? (p.skipPrefill ? 'cpp' : 'python');
  const results = verifyProofs(
    { data, rowCount: n, hiddenSize: h },
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
      // A 32-bit pattern: "0x3f800000" (1.0), or the same as a whole number 0..4294967295. -1, 1e20
      // or 4294967296 are no float32's bits and are refused rather than wrapped.
      const u = typeof x === 'string' && /^0x[0-9a-fA-F]{1,8}$/.test(x) ? Number(x) : typeof x === 'number' ? x : NaN;
      if (!Number.isInteger(u) || u < 0 || u > 0xffffffff) throw new InputError(`not a float32 bit pattern: ${JSON.stringify(x)} (want "0x00000000".."0xffffffff", e.g. "0x3f800000" for 1.0)`);
      return '0x' + f32BitsToBf16(u).toString(16).padStart(4, '0');
    }),
  };
}

export const run: CliCommand = cliCommand('toploc', async (args, io) => {
  const { sub, rest } = pickSubcommand(args, SUBCOMMANDS, USAGE);
  const semantics = sub === 'verify' ? parseCommand(rest, VERIFY).values.semantics : void parseCommand(rest, PLAIN);
  try {
    const input: unknown = JSON.parse(await readStdin(io.stdin));
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new InputError('stdin must hold one JSON object');
    const c = input as Record<string, unknown>;
    const out = sub === 'build' ? build(c) : sub === 'verify' ? verify(c, semantics) : bf16(c);
    io.stdout(JSON.stringify(out) + '\n');
    return 0;
  } catch (e) {
    if (e instanceof InputError || e instanceof SyntaxError) {
      io.stderr(`toploc ${sub}: ${e.message}. Give one case object as in the golden vectors on stdin.\n`);
      return 2;
    }
    throw e;
  }
});
