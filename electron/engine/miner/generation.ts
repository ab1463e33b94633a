// Chunked generation (PROTOCOL 4.3-4.6): at most `chunkTokens` new tokens per /generate call;
// each continuation re-sends prompt + output so far minus the last token, regenerates that
// overlap token and drops it, so every kept row is a decode vector and the rows equal those
// of one long call. cached_tokens comes from the first call only.
import { randomBytes } from 'node:crypto';
import type { Agent } from 'node:http';
import { CancelledError, type Job } from './job.ts';
import type { GenerateCallParse, ProofPort } from './proof-port.ts';
import { postGenerate } from './serve-http.ts';
import { SseTextScanner } from './sse-text.ts';

export interface GenerationResult {
  /** Proven output tokens (each has a row). */
  outputIds: number[];
  rows: Uint16Array[];
  /** Output tokens with no row, folded into the commitment's prompt_ids. */
  promptExtra: number[];
  cachedTokens: number;
  lastFinish: string | null;
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
  /** Text of one token, to recognise the regenerated overlap at the start of a continuation. */
  tokenText?: (id: number) => Promise<string>;
  job: Job;
  proof: ProofPort;
  agent: Agent;
  timeoutMs: number;
  chunkTokens?: number;
  now?: () => number;
}

export const GEN_CHUNK = 4096;

export async function generateChunked(o: GenerationOptions): Promise<GenerationResult> {
  const chunk = o.chunkTokens ?? GEN_CHUNK;
  const now = o.now ?? Date.now;
  const res: GenerationResult = { outputIds: [], rows: [], promptExtra: [], cachedTokens: 0, lastFinish: null, firstTokenAt: null, lastTokenAt: null };
  // Text already delivered by earlier calls, and the part of this call's text to skip (the overlap token).
  let delivered = '';
  const total = () => res.outputIds.length + res.promptExtra.length;
  while (total() < o.maxNew) {
    o.job.check();
    const want = Math.min(chunk, o.maxNew - total());
    const first = res.outputIds.length === 0;
    const input = first ? o.promptIds : [...o.promptIds, ...res.promptExtra, ...res.outputIds.slice(0, -1)];
    let skip: string | null = null;
    if (!first && o.onText && o.tokenText) skip = await o.tokenText(res.outputIds[res.outputIds.length - 1]!);
    const base = delivered;
    const onCallText = o.onText
      ? (text: string) => {
          let own = text;
          if (!first) {
            if (skip !== null && own.startsWith(skip)) own = own.slice(skip.length);
            else return; // the overlap token has not fully arrived yet
          }
          if (own.length === 0) return;
          const t = now();
          res.firstTokenAt ??= t;
          res.lastTokenAt = t;
          delivered = base + own;
          o.onText!(delivered);
        }
      : undefined;
    const parse = await callGenerate(o, input, first ? want : want + 1, onCallText);
    if (first) {
      res.cachedTokens = parse.cachedTokens;
      const ids = parse.outputIds;
      if (parse.offset > 0) res.promptExtra = ids.slice(0, parse.offset);
      const keep = Math.min(parse.rows.length, ids.length - parse.offset);
      res.outputIds.push(...ids.slice(parse.offset, parse.offset + keep));
      res.rows.push(...parse.rows.slice(0, keep));
    } else {
      // Row index where the new tokens begin: the overlap token's row is dropped unless it had none.
      const start = Math.max(0, 1 - parse.offset);
      const avail = parse.rows.length - start;
      const kept = parse.outputIds.slice(1, 1 + Math.max(0, avail));
      res.outputIds.push(...kept);
      res.rows.push(...parse.rows.slice(start, start + kept.length));
    }
    res.lastFinish = parse.finishType;
    if (parse.finishType === 'abort') {
      o.job.check();
      throw new Error(`the serve aborted the request${parse.finishMessage ? `: ${parse.finishMessage}` : ''}`);
    }
    const produced = first ? res.outputIds.length + res.promptExtra.length : parse.outputIds.length - 1;
    if (parse.finishType !== 'length' || produced < want) break;
  }
  if (res.rows.length === 0) {
    throw new Error('the serve returned no hidden states: start it with --enable-return-hidden-states (and nothing on its PYTHONPATH that empties them)');
  }
  return res;
}

async function callGenerate(o: GenerationOptions, inputIds: number[], maxNew: number, onText: ((t: string) => void) | undefined): Promise<GenerateCallParse> {
  const rid = `engy-${randomBytes(16).toString('hex')}`;
  const stream = onText !== undefined;
  const body: Record<string, unknown> = {
    input_ids: inputIds,
    sampling_params: { temperature: 0.0, max_new_tokens: maxNew },
    rid,
    return_hidden_states: true,
    return_logprob: true,
  };
  if (stream) body.stream = true;
  const session = o.proof.openBodyParser(stream ? 'sse' : 'json');
  let streamError: string | null = null;
  const scanner = stream
    ? new SseTextScanner((e) => {
        if (e.error !== null) streamError = e.error;
        else if (e.text !== null) onText(e.text);
      })
    : null;
  o.job.rids.add(rid);
  try {
    await postGenerate(
      o.serveUrl,
      body,
      o.agent,
      (bytes) => {
        o.job.check();
        scanner?.push(bytes);
        if (!session.push(bytes)) return session.ready();
      },
      { timeoutMs: o.timeoutMs, signal: o.job.controller.signal },
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
