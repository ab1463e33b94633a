// Binds the miner's ProofPort to the proof engine: its incremental /generate body parser
// (linear time, rows straight into one bf16 buffer, never the body as a string), build, verify.
// With a ProofPool all of it runs in worker threads, so the thread answering the gateway never
// parses a body or builds a proof; without one (tests, tools) it runs on the calling thread.
import { buildProofs, GenerateBodyParser, keptRowCount, NO_HIDDEN_STATES_MESSAGE, verifyProofs, type Bf16Rows, type ChunkVerification, type GenerateBody, type ProofParams } from '../proof/index.ts';
import { threadSlices } from '../lib/thread-slices.ts';
import type { ParseJob, ProofPool } from '../proof/proof-pool.ts';
import type { BodyParseSession, GenerateCallParse, ProofPort, ProofVerifyResult } from './proof-port.ts';

function flatten(rows: Uint16Array[]): Bf16Rows {
  const hidden = rows[0]?.length ?? 0;
  const data = new Uint16Array(rows.length * hidden);
  rows.forEach((r, i) => data.set(r, i * hidden));
  return { data, rowCount: rows.length, hiddenSize: hidden };
}

/**
 * The rows as one run, for a hand-over to a worker: rows that already lie back to back in one
 * buffer (one serve call's parse, the common case) are passed as a view of it, so a 4096-row
 * request holds its 16 MiB of bf16 once instead of twice; rows from several calls are copied
 * into one buffer. The buffer is transferred: the caller's row views are unusable afterwards.
 */
export function rowsForHandOver(rows: Uint16Array[]): Bf16Rows {
  const first = rows[0];
  if (!first) return flatten(rows);
  const h = first.length;
  const step = h * Uint16Array.BYTES_PER_ELEMENT;
  for (let i = 1; i < rows.length; i++) {
    const r = rows[i]!;
    if (r.buffer !== first.buffer || r.length !== h || r.byteOffset !== first.byteOffset + i * step) return flatten(rows);
  }
  return { data: new Uint16Array(first.buffer, first.byteOffset, rows.length * h), rowCount: rows.length, hiddenSize: h };
}

export function createProofPort(pool?: ProofPool): ProofPort {
  if (pool) {
    return {
      openBodyParser: (kind, expectRows, prove) => poolSession(pool, kind, expectRows, proofParams(prove)),
      buildProofs: (rows, topk, batching) => pool.buildProofs(rowsForHandOver(rows), { topk, decodeBatchingSize: batching, skipPrefill: true }),
      verifyProofs: async (proofs, rows, topk, batching) => summarise(await pool.verifyProofs(flatten(rows), proofs, { topk, decodeBatchingSize: batching, skipPrefill: true }), topk),
    };
  }
  return {
    openBodyParser: (kind, expectRows, prove) => parserSession(kind, expectRows, proofParams(prove)),
    buildProofs: async (rows, topk, batching) => buildProofs(flatten(rows), { topk, decodeBatchingSize: batching, skipPrefill: true }),
    verifyProofs: async (proofs, rows, topk, batching) => summarise(verifyProofs(flatten(rows), proofs, { topk, decodeBatchingSize: batching, skipPrefill: true }), topk),
  };
}

function summarise(checks: ChunkVerification[], topk: number): ProofVerifyResult {
  const unusable = checks.filter((c) => c.failure !== null).length;
  const mean = checks.length > 0 ? checks.reduce((n, c) => n + c.expMismatches, 0) / checks.length : 0;
  return { score: mean / topk, chunks: checks.length, unusable, mismatches: checks.map((c) => c.expMismatches) };
}

function proofParams(prove: { topk: number; batching: number } | undefined): ProofParams | undefined {
  return prove ? { topk: prove.topk, decodeBatchingSize: prove.batching, skipPrefill: true } : undefined;
}

function poolSession(pool: ProofPool, kind: 'json' | 'sse', expectRows?: number, proveAsParsed?: ProofParams): BodyParseSession {
  // Opened with the body's first bytes, not with the call: opening posts to a worker, and in a burst
  // of requests that work would sit between each request and its write to the serve.
  let job: ParseJob | null = null;
  let discarded = false;
  const open = (): ParseJob => (job ??= pool.openParse({ format: kind, prove: null, expectRows, proveAsParsed }));
  return {
    // ParseJob copies the chunk (the socket may reuse its Buffer). False past the pool's
    // high-water mark: the caller then awaits ready() before reading more (postGenerate pauses
    // the socket), so a fast localhost body cannot pile up in the worker's queue.
    push: (chunk) => open().push(chunk),
    ready: () => (job ? job.ready() : Promise.resolve()),
    discard: () => {
      discarded = true;
      job?.abort();
    },
    end: async () => {
      if (discarded) throw new Error('the body parser was discarded');
      const { body } = await open().end();
      return threadSlices.run('row views', () => fromBody(body));
    },
  };
}

function parserSession(kind: 'json' | 'sse', expectRows?: number, proveAsParsed?: ProofParams): BodyParseSession {
  let parser: GenerateBodyParser | null = new GenerateBodyParser({ format: kind, expectRows, proveAsParsed });
  return {
    push: (chunk) => {
      parser?.push(chunk);
      return true;
    },
    ready: () => Promise.resolve(),
    discard: () => {
      parser = null;
    },
    end: async () => {
      if (!parser) throw new Error('the body parser was discarded');
      const body = parser.end();
      parser = null;
      return fromBody(body);
    },
  };
}

function fromBody(b: GenerateBody): GenerateCallParse {
  if (b.serveError !== null) throw new Error(`serve error: ${b.serveError}`);
  // No rows at all for the tokens generated: the key missing, or present but emptied (PROTOCOL 4.5).
  if (!b.hiddenStatesPresent || (b.rows.rowCount === 0 && b.outputTokenIds.length > 0)) throw new Error(NO_HIDDEN_STATES_MESSAGE);
  const h = b.rows.hiddenSize;
  // Proven as parsed: the rows are gone, only their count and proofs came back. Otherwise views
  // into the parser's one buffer: no copy per row.
  const proven = b.proofs !== null ? { proofs: b.proofs, rows: keptRowCount(b.rows.rowCount, b.outputTokenIds.length, b.rowOffset) } : null;
  const rows = proven ? [] : Array.from({ length: b.rows.rowCount }, (_, i) => b.rows.data.subarray(i * h, (i + 1) * h));
  return {
    outputIds: b.outputTokenIds,
    rows,
    proven,
    offset: b.rowOffset,
    finishType: b.finishReason?.type ?? null,
    finishMessage: b.finishReason?.message ?? null,
    cachedTokens: b.cachedTokens ?? 0,
    text: b.text,
  };
}
