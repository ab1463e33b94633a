// The miner's proofs (skip_prefill) built while a body's rows are parsed: each batch of B rows is
// proven the moment it is complete and its memory is reused for the next, so a 4096-row request
// never holds its 16 MiB of rows, only the batch being filled (B rows: 128 KiB at hidden size
// 2048). The proofs are byte for byte those of buildProofs over the kept rows (build.ts): same
// chunks, same top-k, same polynomial, same null-proof rule.
import { InterpolationError } from './field.ts';
import { GenerateBodyError } from './body-error.ts';
import { nullProof, proofFromPoints, proofToBase64, type ProofPoly } from './proof-poly.ts';
import { TopkSelector } from './topk.ts';
import { checkProofParams, type ProofParams } from './types.ts';

/**
 * Rows the commitment proves for one serve call: one per output token that has a row (tokens
 * before the first row are prompt), never more rows than such tokens, never fewer than none.
 */
export function keptRowCount(rows: number, outputTokens: number, rowOffset: number): number {
  return Math.max(0, Math.min(rows, outputTokens - rowOffset));
}

export class StreamingProver {
  readonly batchRows: number;
  private readonly k: number;
  private readonly selector = new TopkSelector();
  private readonly x: Int32Array;
  private readonly y: Int32Array;
  /**
   * One entry per complete batch, in order: its proof, or the error building it gave. An error is
   * raised only if that batch is among the kept rows at the end, as buildProofs would raise it.
   */
  private readonly batches: (ProofPoly | Error)[] = [];

  constructor(params: ProofParams) {
    checkProofParams(params);
    if (!params.skipPrefill) throw new RangeError('proofs built as rows are parsed need skipPrefill (the miner sends decode rows only)');
    this.batchRows = params.decodeBatchingSize;
    this.k = params.topk;
    this.x = new Int32Array(this.k);
    this.y = new Int32Array(this.k);
  }

  /** The rows start over (a new document or hidden_states list in the body). */
  reset(): void {
    this.batches.length = 0;
  }

  /** Batches proven so far (each of batchRows rows). */
  get provenBatches(): number {
    return this.batches.length;
  }

  /** A complete batch: data[start .. start + length) (batchRows rows). The caller may reuse the memory afterwards. */
  batch(data: Uint16Array, start: number, length: number): void {
    // Shorter than k: every batch is (they are all one size), and finish() answers null proofs.
    this.batches.push(length < this.k ? nullProof(this.k) : this.prove(data, start, length));
  }

  /**
   * The proofs over the first `keep` rows of `total` parsed ones. The rows past the last complete
   * batch are still in tail[0 .. (total % batchRows) * hidden). Throws when the kept rows end inside
   * a batch already proven and reused (the serve sent more rows than tokens past a batch boundary).
   */
  finish(keep: number, total: number, tail: Uint16Array, hidden: number): string[] {
    const b = this.batchRows;
    if (keep <= 0) return [];
    const full = Math.floor(keep / b);
    const rem = keep % b;
    const tailRows = total - this.batches.length * b;
    if (rem > 0 && full !== this.batches.length) {
      throw new GenerateBodyError(`malformed /generate body: ${total} hidden-state rows for ${keep} output tokens that have one`);
    }
    if (rem > tailRows) throw new RangeError(`${keep} rows kept of ${total} parsed`);
    // As buildProofPolys walks the chunks: the first one shorter than k makes every proof a null
    // proof; an error building an earlier chunk is raised before that.
    const nulls = (): string[] => Array.from({ length: 1 + Math.floor((keep - 1 + b) / b) }, () => proofToBase64(nullProof(this.k)));
    if (full > 0 && b * hidden < this.k) return nulls();
    const out: string[] = [];
    for (let i = 0; i < full; i++) {
      const p = this.batches[i]!;
      if (p instanceof Error) throw p;
      out.push(proofToBase64(p));
    }
    if (rem > 0 && rem * hidden < this.k) return nulls();
    if (rem > 0) {
      const p = this.prove(tail, 0, rem * hidden);
      if (p instanceof Error) throw p;
      out.push(proofToBase64(p));
    }
    return out;
  }

  private prove(data: Uint16Array, start: number, length: number): ProofPoly | Error {
    const k = this.k;
    this.selector.select(data, start, length, k, this.x);
    for (let i = 0; i < k; i++) this.y[i] = data[start + this.x[i]!]!;
    try {
      return proofFromPoints(this.x, this.y);
    } catch (e) {
      if (e instanceof InterpolationError) return e;
      throw e;
    }
  }
}
