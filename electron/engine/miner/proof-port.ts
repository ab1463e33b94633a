// What the miner needs from the proof engine (electron/engine/proof): parse a /generate body
// off the main thread, build proofs, verify them. proof-adapter.ts binds it to the engine.

/** One `/generate` call's body, reduced to what the commitment needs. */
export interface GenerateCallParse {
  /** From meta_info.output_token_logprobs[i][1]. */
  outputIds: number[];
  /**
   * bf16 bit patterns of every output token that has a row, in order (element 0's last row, then
   * decode vectors). Empty when the call was proven as parsed (see proven).
   */
  rows: Uint16Array[];
  /**
   * The call was proven as its body was parsed (openBodyParser with prove): the proofs over its
   * first `rows` rows (keptRowCount: never more than the output tokens that have one), which were
   * never kept. Null otherwise.
   */
  proven: { proofs: string[]; rows: number } | null;
  /** Leading output tokens without a row (empty prefill block on a full radix-cache hit). */
  offset: number;
  finishType: string | null;
  finishMessage: string | null;
  cachedTokens: number;
  /** The final cumulative text, when the body carried it. */
  text: string | null;
}

export interface BodyParseSession {
  /** False when the parser is behind: wait for ready() before the next chunk (backpressure). */
  push(chunk: Buffer): boolean;
  ready(): Promise<void>;
  /** The body ended: resolves with the parse, or rejects with the body's error. */
  end(): Promise<GenerateCallParse>;
  /** Drop the session (cancel, HTTP failure): frees the worker's buffers. */
  discard(): void;
}

export interface ProofVerifyResult {
  /** Mean top-k exponent mismatch count / k over the chunks: what the auditor scores. */
  score: number;
  chunks: number;
  /** Chunks whose proof could not be used at all. */
  unusable: number;
  /** Exponent mismatches per chunk (k for an unusable one). */
  mismatches: number[];
}

export interface ProofPort {
  /**
   * expectRows: the call's max_new_tokens, so the row buffer is sized once. prove: build the
   * proofs while the body is parsed and keep no rows (a call whose rows are all the commitment's:
   * the only call of a generation); the session's parse then carries `proven`.
   */
  openBodyParser(kind: 'json' | 'sse', expectRows?: number, prove?: { topk: number; batching: number }): BodyParseSession;
  /** The rows' memory may be handed to a worker (transferred): do not read the rows afterwards. */
  buildProofs(rows: Uint16Array[], topk: number, batching: number): Promise<string[]>;
  verifyProofs(proofs: string[], rows: Uint16Array[], topk: number, batching: number): Promise<ProofVerifyResult>;
}

export const TOPK = 128;
/** The auditor's per-chunk cut (toploc_v) and the share of chunks that must pass (toploc_p), PROTOCOL 2. */
export const TOPLOC_V = 40;
export const TOPLOC_P = 0.99;
export const DECODE_BATCHING = 32;
