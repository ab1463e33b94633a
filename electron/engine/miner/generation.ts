// Chunked generation (PROTOCOL 4.3-4.6): at most `chunkTokens` new tokens per /generate call;
// each continuation re-sends prompt + output so far minus the last token, regenerates that
// overlap token and drops it, so every kept row is a decode vector and the rows equal those
// of one long call. cached_tokens comes from the first call only.
import { randomUUID } from 'node:crypto';
import type { Agent } from 'node:http';
import { CancelledError, type Job } from './job.ts';
import type { GenerateCallParse, ProofPort } from './proof-port.ts';
import { postGenerate } from './serve-http.ts';
import type { ReservedConnection, ServeSocketPool } from './serve-socket-pool.ts';
import { threadSlices } from '../lib/thread-slices.ts';
import { SseTextScanner } from './sse-text.ts';
import { keptRowCount } from '../proof/stream-proof.ts';
import { DECODE_BATCHING, TOPK } from './proof-port.ts';

export interface GenerationResult {
  /** Proven output tokens (each has a row). */
  outputIds: number[];
  /** Their rows, to prove; empty when the proofs were built as the body was parsed (proofs). */
  rows: Uint16Array[];
  /** Rows proven: one per proven output token, whether held in rows or already proven. */
  rowCount: number;
  /**
   * The proofs, built in the proof worker while the only call's body was parsed (its rows never
   * held: a 4096-row call would hold 16 MiB); null when rows must be proven (several calls).
   */
  proofs: string[] | null;
  /** Output tokens with no row, folded into the commitment's prompt_ids. */
  promptExtra: number[];
  cachedTokens: number;
  lastFinish: string | null;
  /**
   * The budget ended the generation with the model still going (finish_reason "length"), as the
   * reference decides it: no chunk ended short or on anything but "length". Every full chunk says
   * "length" because the chunk size ended it, so one chunk's finish cannot answer this alone.
   */
  truncated: boolean;
  /** Wall time (ms since epoch) of the first and the last text event; null without streaming. */
  firstTokenAt: number | null;
  lastTokenAt: number | null;
}

export interface GenerationOptions {
  serveUrl: string;
  promptIds: number[];
  maxNew: number;
  /** Stream from the serve and report cumulative text across calls. */
  onText?: (cumulative: string) => void;
  job: Job;
  /** Ends this generation alone (a call sent with a prompt guess the tokenizer overruled); the job's own by default. */
  signal?: AbortSignal;
  proof: ProofPort;
  agent: Agent;
  /** Kept-alive connections to `http:` serves; without it each call opens its own. */
  sockets?: ServeSocketPool;
  /** The connection set aside for this request as it arrived: the first call's. */
  reserved?: ReservedConnection;
  timeoutMs: number;
  chunkTokens?: number;
  now?: () => number;
  /** Every network chunk from the serve: it is alive and serving, whatever its /health says. */
  onBytes?: () => void;
}

export const GEN_CHUNK = 4096;

export async function generateChunked(o: GenerationOptions): Promise<GenerationResult> {
  const chunk = o.chunkTokens ?? GEN_CHUNK;
  const now = o.now ?? Date.now;
  const res: GenerationResult = { outputIds: [], rows: [], rowCount: 0, proofs: null, promptExtra: [], cachedTokens: 0, lastFinish: null, truncated: true, firstTokenAt: null, lastTokenAt: null };
  // Text already delivered by earlier calls. A trailing U+FFFD is an incomplete character whose
  // remaining bytes come with the next token (possibly in the next call): it is held back until
  // the generation ends, so the buyer never sees a replacement character the final text lacks.
  let delivered = '';
  let heldTail = '';
  const deliver = (full: string, final = false): void => {
    const cut = final ? full : full.replace(/\uFFFD+$/, '');
    heldTail = full.slice(cut.length);
    if (cut.length <= delivered.length) return;
    const t = now();
    res.firstTokenAt ??= t;
    res.lastTokenAt = t;
    delivered = cut;
    o.onText!(delivered);
  };
  const total = () => res.outputIds.length + res.promptExtra.length;
  while (total() < o.maxNew) {
    o.job.check();
    o.signal?.throwIfAborted();
    const want = Math.min(chunk, o.maxNew - total());
    const first = res.outputIds.length === 0;
    const input = first ? o.promptIds : [...o.promptIds, ...res.promptExtra, ...res.outputIds.slice(0, -1)];
    const base = delivered;
    // A continuation regenerates the overlap token first; its text (whatever the serve's
    // detokenizer made of it, even nothing for part of a character) is already delivered. As the
    // reference does, the call's text counts from the first event that carries an output token.
    let skip: number | null = first ? 0 : null;
    const onCallText = o.onText
      ? (text: string, tokens: number | null) => {
          if (skip === null) {
            if (tokens !== null && tokens < 1) return;
            // A serve that shows part of a character as U+FFFD: that part is not delivered text.
            skip = text.replace(/\uFFFD+$/, '').length;
            return;
          }
          if (text.length <= skip) return;
          // The previous call's held-back tail is dropped: this call's text re-covers the overlap token.
          deliver(base + text.slice(skip));
        }
      : undefined;
    // A first call that may produce the whole budget is the only call (the loop ends after it
    // whatever it returns): its rows are all the commitment's, so they are proven as they are
    // parsed and never held.
    const only = first && want === o.maxNew;
    const parse = await callGenerate(o, input, first ? want : want + 1, onCallText, only);
    if (first) {
      res.cachedTokens = parse.cachedTokens;
      const ids = parse.outputIds;
      if (parse.offset > 0) res.promptExtra = ids.slice(0, parse.offset);
      if (parse.proven) {
        res.outputIds.push(...ids.slice(parse.offset, parse.offset + parse.proven.rows));
        res.rowCount = parse.proven.rows;
        res.proofs = parse.proven.proofs;
      } else {
        const keep = keptRowCount(parse.rows.length, ids.length, parse.offset);
        res.outputIds.push(...ids.slice(parse.offset, parse.offset + keep));
        res.rows.push(...parse.rows.slice(0, keep));
        res.rowCount = res.rows.length;
      }
    } else {
      // Row index where the new tokens begin: the overlap token's row is dropped unless it had none.
      const start = Math.max(0, 1 - parse.offset);
      const avail = parse.rows.length - start;
      const kept = parse.outputIds.slice(1, 1 + Math.max(0, avail));
      res.outputIds.push(...kept);
      res.rows.push(...parse.rows.slice(start, start + kept.length));
      res.rowCount = res.rows.length;
    }
    res.lastFinish = parse.finishType;
    // An abort we did not ask for (the serve's own, e.g. its scheduler retracting the request)
    // ends the generation like a stop: the buyer gets the text generated so far, with its proof,
    // as the reference miner does. Our own cancel was already caught by job.check().
    if (parse.finishType === 'abort') o.job.check();
    // As the reference counts it: tokens folded into the prompt (the whole prompt was cached) are
    // not produced, so such a first call always ends the generation, and not as `length`.
    const produced = first ? res.outputIds.length : parse.outputIds.length - 1;
    if (parse.finishType !== 'length' || produced < want) {
      res.truncated = false;
      break;
    }
  }
  if (o.onText && heldTail.length > 0) deliver(delivered + heldTail, true);
  if (res.rowCount === 0) {
    throw new Error('the serve returned no hidden states: start it with --enable-return-hidden-states (and nothing on its PYTHONPATH that empties them)');
  }
  return res;
}

async function callGenerate(o: GenerationOptions, inputIds: number[], maxNew: number, onText: ((t: string, tokens: number | null) => void) | undefined, prove: boolean): Promise<GenerateCallParse> {
  // A v4 UUID's 122 random bits as 32 hex digits: randomUUID draws from a cached entropy pool, randomBytes asks the OS each call.
  const rid = `engy-${randomUUID().replace(/-/g, '')}`;
  const stream = onText !== undefined;
  const body: Record<string, unknown> = {
    input_ids: inputIds,
    sampling_params: { temperature: 0.0, max_new_tokens: maxNew },
    rid,
    return_hidden_states: true,
    return_logprob: true,
  };
  if (stream) body.stream = true;
  const session = o.proof.openBodyParser(stream ? 'sse' : 'json', maxNew, prove ? { topk: TOPK, batching: DECODE_BATCHING } : undefined);
  let streamError: string | null = null;
  const scanner = stream
    ? new SseTextScanner((e) => {
        if (e.error !== null) streamError = e.error;
        else if (e.text !== null) onText(e.text, e.tokens);
      })
    : null;
  o.job.rids.add(rid);
  try {
    await postGenerate(
      o.serveUrl,
      body,
      o.agent,
      (bytes) => {
        o.onBytes?.();
        o.job.check();
        if (scanner && threadSlices.enabled) threadSlices.run('SSE text scan', () => scanner.push(bytes));
        else scanner?.push(bytes);
        if (!session.push(bytes)) return session.ready();
      },
      { timeoutMs: o.timeoutMs, signal: o.signal ?? o.job.signal, sockets: o.sockets, reserved: o.reserved },
    );
    scanner?.end();
    o.job.check();
    if (streamError !== null) throw new Error(`serve error mid-stream: ${streamError}`);
    return await session.end();
  } catch (e) {
    session.discard();
    // Our own cancel ends the call either with a torn-down connection or a truncated answer.
    if (o.job.cancelled) throw new CancelledError();
    throw e;
  } finally {
    o.job.rids.delete(rid);
  }
}
