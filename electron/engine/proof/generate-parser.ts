// Incremental parser for sglang `POST /generate` response bodies: one JSON object (or a batch
// array, of which element 0 counts), or the SSE stream of `data: {...}` lines ending `data: [DONE]`.
//
// It consumes byte chunks as they arrive and never holds the body as a string: the proof's rows go
// straight into one bf16 buffer, so memory is the rows kept plus one prefill row, and time is
// linear. In a stream every event carries the cumulative text and meta_info and the LAST event is
// the answer; text deltas are reported as soon as each event's text has been read.
import { GenerateBodyError } from './body-error.ts';
import { GenerateDocument, fail, isWs, type FinishReason } from './generate-document.ts';
import { SseFramer } from './sse-framer.ts';
import { keptRowCount, StreamingProver } from './stream-proof.ts';
import type { Bf16Rows, ProofParams } from './types.ts';

export type { FinishReason } from './generate-document.ts';

export interface GenerateBody {
  /**
   * One bf16 row per output token that has a hidden state, in order. With proveAsParsed the rows
   * are gone (proven and their memory reused): data is empty, rowCount still counts them.
   */
  rows: Bf16Rows;
  /**
   * With proveAsParsed: the proofs over the kept rows (keptRowCount: the first min(rows, output
   * tokens - rowOffset)), as buildProofs would give them over those rows. Null otherwise.
   */
  proofs: string[] | null;
  /** Leading output tokens without a row (empty prefill block after a full radix-cache hit). */
  rowOffset: number;
  /** False when meta_info had no hidden_states at all (serve started without the flag). */
  hiddenStatesPresent: boolean;
  /** meta_info.output_token_logprobs[i][1]. */
  outputTokenIds: number[];
  finishReason: FinishReason | null;
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens: number | null;
  /** The full (cumulative) text of the final event. */
  text: string;
  /** Message of an `{"error": ...}` body or stream event, if any. */
  serveError: string | null;
  format: 'json' | 'sse';
  /** Events in a stream (1 for a plain body). */
  events: number;
  sawDone: boolean;
}

export interface GenerateParserOptions {
  /** Default 'auto': a body starting with '{' or '[' is JSON, anything else SSE. */
  format?: 'auto' | 'json' | 'sse';
  /** New text as it arrives; without it, deltas pile up for takeTextDelta(). */
  onTextDelta?: (delta: string) => void;
  /** Cap on the values read whole (text, finish_reason, counters). Default 64 MiB. */
  maxCaptureBytes?: number;
  /** Rows expected (the call's max_new_tokens): the row buffer is sized once, not doubled. */
  expectRows?: number;
  /**
   * Build the proofs (skip_prefill) batch by batch while the rows are parsed, instead of keeping
   * the rows: the body's memory is then one batch of rows, whatever its length.
   */
  proveAsParsed?: ProofParams;
  /**
   * Nobody reads text deltas (no onTextDelta, no takeTextDelta): each stream event's text is kept
   * as bytes and only the final one is decoded, at end().
   */
  finalTextOnly?: boolean;
}

export class GenerateBodyParser {
  private readonly onTextDelta: ((delta: string) => void) | undefined;
  private format: 'json' | 'sse' | null = null;
  private readonly doc: GenerateDocument;
  private readonly sse: SseFramer;
  private failed: Error | null = null;
  private bytesIn = 0;
  private sentTextLength = 0;
  private pendingDelta = '';

  constructor(options: GenerateParserOptions = {}) {
    this.onTextDelta = options.onTextDelta;
    this.doc = new GenerateDocument((t) => this.textArrived(t), options.maxCaptureBytes ?? 64 * 1024 * 1024, !(options.finalTextOnly === true && options.onTextDelta === undefined));
    this.sse = new SseFramer(this.doc);
    const expect = options.expectRows;
    if (typeof expect === 'number' && Number.isSafeInteger(expect) && expect > 0) this.doc.rows.expectRows = expect;
    if (options.proveAsParsed) this.doc.rows.prover = new StreamingProver(options.proveAsParsed);
    if (options.format === 'json' || options.format === 'sse') this.setFormat(options.format);
  }

  push(chunk: Uint8Array): void {
    if (this.failed) throw this.failed;
    try {
      let pos = 0;
      if (this.format === null) {
        while (pos < chunk.length && isWs(chunk[pos]!)) pos++;
        if (pos === chunk.length) return;
        this.setFormat(chunk[pos] === 123 || chunk[pos] === 91 ? 'json' : 'sse');
      }
      if (this.format === 'json') this.doc.feed(chunk, pos, chunk.length);
      else this.sse.feed(chunk, pos);
      this.bytesIn += chunk.length;
    } catch (e) {
      throw this.poison(e);
    }
  }

  /** Text received since the last call (when no onTextDelta callback was given). */
  takeTextDelta(): string {
    const d = this.pendingDelta;
    this.pendingDelta = '';
    return d;
  }

  /** The body is complete: checks it ended cleanly and returns what the final answer holds. */
  end(): GenerateBody {
    if (this.failed) throw this.failed;
    const doc = this.doc;
    try {
      if (this.format === null) fail('the body is empty');
      if (this.format === 'json' && !doc.complete) fail('the body ended before its JSON was complete');
      if (this.format === 'sse') this.sse.end();
    } catch (e) {
      throw this.poison(e);
    }
    const sink = doc.rows;
    let proofs: string[] | null = null;
    let text: string;
    try {
      text = doc.text;
      if (sink.prover !== null) proofs = sink.finishProofs(keptRowCount(sink.rowCount, doc.tokenCount, sink.rowOffset));
    } catch (e) {
      throw this.poison(e);
    }
    const rows: Bf16Rows = sink.prover !== null ? { data: new Uint16Array(0), rowCount: sink.rowCount, hiddenSize: sink.hiddenSize } : sink.take();
    return {
      rows,
      proofs,
      rowOffset: doc.rows.rowOffset,
      hiddenStatesPresent: doc.hiddenStatesPresent,
      outputTokenIds: doc.tokenIds,
      finishReason: doc.finishReason,
      promptTokens: doc.promptTokens,
      completionTokens: doc.completionTokens,
      cachedTokens: doc.cachedTokens,
      text,
      serveError: doc.serveError,
      format: this.format === 'json' ? 'json' : 'sse',
      events: this.format === 'json' ? 1 : this.sse.events,
      sawDone: this.sse.sawDone,
    };
  }

  private setFormat(format: 'json' | 'sse'): void {
    this.format = format;
    if (format === 'json') this.doc.begin();
  }

  private textArrived(text: string): void {
    if (text.length <= this.sentTextLength) return;
    const delta = text.slice(this.sentTextLength);
    this.sentTextLength = text.length;
    if (this.onTextDelta) this.onTextDelta(delta);
    else this.pendingDelta += delta;
  }

  private poison(e: unknown): Error {
    const err = e instanceof GenerateBodyError ? new GenerateBodyError(`${e.message} (in the chunk starting at byte ${this.bytesIn})`) : e instanceof Error ? e : new Error(String(e));
    this.failed = err;
    return err;
  }
}
