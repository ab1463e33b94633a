// One `serve` frame end to end (PROTOCOL 4): prompt -> chunked generation on the least-loaded
// serve -> streamed deltas (coalesced) -> proof -> the terminal `response`. A `cancel` stops it
// at the next checkpoint, aborts its serve rids and sends nothing.
import type { MinerRequestRecord } from '../../../shared/miner.ts';
import type { Logger } from '../lib/logger.ts';
import { DeltaCoalescer } from './delta-coalescer.ts';
import { chunkFrame, errorResponseFrame, responseFrame, type Commitment, type CompletionOutput, type CorrId, type GatewayFrame, type MinerFrame, type ResponseError } from './frames.ts';
import { generateChunked, type GenerationResult } from './generation.ts';
import { CancelledError, Job } from './job.ts';
import { assembleMessage } from './assemble-message.ts';
import { OutputSplitter } from './output-splitter.ts';
import { sameIds, type PromptBuilder } from './prompt-builder.ts';
import { DECODE_BATCHING, TOPK, type ProofPort } from './proof-port.ts';
import { postAbort, type ServeAgents } from './serve-http.ts';
import type { ServePool } from './serve-pool.ts';
import type { ReservedConnection } from './serve-socket-pool.ts';
import type { WorkerLoad } from './worker-load.ts';
import { errorMessage } from '../../../shared/errors.ts';
import { BadRequestError, overCapacityError, responseErrorOf } from './response-errors.ts';
import { maxNewTokens } from './request-fields.ts';

export { DEFAULT_MAX_TOKENS, MAX_OUTPUT_TOKENS } from './request-fields.ts';

/** Where a request came from and where its answer goes: the socket it arrived on. */
export interface ResponseSink {
  readonly legIndex: number;
  send(frame: MinerFrame): boolean;
  settle(corrId: string): void;
}

/** A served request kept for the self-audit: ids and the proof only, never text. */
export interface AuditSample {
  requestId: string;
  serveUrl: string;
  commitment: Commitment;
}

export interface PipelineDeps {
  prompt: PromptBuilder;
  proof: ProofPort;
  serves: ServePool;
  agents: ServeAgents;
  modelRoot: string;
  engine: string;
  timeoutMs: number;
  log: Logger;
  onRecord(rec: MinerRequestRecord): void;
  onServed?(sample: AuditSample): void;
  onInflightChange?(): void;
  /** The process-wide count every leg's heartbeat reports. */
  load?: WorkerLoad;
  /**
   * The total this miner declared (max_inflight_total): a serve frame beyond it is refused at
   * once instead of queueing on the serve, so a gateway (or a peer posing as one) cannot pile
   * up unbounded work and memory. Unlimited when absent.
   */
  maxInflight?: () => number;
  /** A request failed on this serve: the health gate probes it now instead of at its next tick. */
  onServeFailure?(serveUrl: string): void;
  flushMs?: number;
  chunkTokens?: number;
  now?: () => number;
  newRequestId?: () => string;
}

type ServeFrame = Extract<GatewayFrame, { type: 'serve' }>;

export class RequestPipeline {
  private readonly jobs = new Map<string, Job>();
  private readonly deps: PipelineDeps;
  private peak = 0;

  constructor(deps: PipelineDeps) {
    this.deps = deps;
  }

  get inflight(): number {
    return this.jobs.size;
  }

  get inflightPeak(): number {
    return this.peak;
  }

  serve(sink: ResponseSink, frame: ServeFrame): Promise<void> {
    const cap = this.deps.maxInflight?.();
    if (cap !== undefined && this.jobs.size >= cap) {
      this.refuse(sink, frame, overCapacityError(this.jobs.size, cap));
      return Promise.resolve();
    }
    const key = `${sink.legIndex}/${frame.corr_id}`;
    const job = new Job(frame.corr_id);
    this.jobs.set(key, job);
    this.peak = Math.max(this.peak, this.jobs.size);
    this.deps.load?.start();
    this.deps.onInflightChange?.();
    return this.run(sink, frame, job).finally(() => {
      this.jobs.delete(key);
      this.deps.load?.done();
      sink.settle(frame.corr_id);
      this.deps.onInflightChange?.();
    });
  }

  /** Answer a serve frame with an error at once, without running it. */
  refuse(sink: ResponseSink, frame: ServeFrame, error: ResponseError): void {
    const rec = this.newRecord(sink, frame, (this.deps.now ?? Date.now)());
    sink.send(errorResponseFrame(wireId(frame), rec.requestId, error));
    sink.settle(frame.corr_id);
    this.deps.onRecord({ ...rec, outcome: 'error', cause: error.message });
  }

  /** The record of a request as it arrives: its id (the buyer's engy_request_id, else a new one), nothing measured yet. */
  private newRecord(sink: ResponseSink, frame: ServeFrame, receivedAt: number): MinerRequestRecord {
    const d = this.deps;
    const req = frame.request;
    const requestId = typeof req.engy_request_id === 'string' && req.engy_request_id.length > 0 ? req.engy_request_id : (d.newRequestId ?? randomId)();
    return {
      corrId: frame.corr_id,
      requestId,
      leg: sink.legIndex,
      engine: d.engine,
      stream: frame.stream,
      receivedAt,
      ttftMs: null,
      tpotMs: null,
      e2eMs: 0,
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      proofMs: null,
      outcome: 'ok',
      finishReason: null,
      cause: null,
    };
  }

  /** Stop now, abort every serve rid of the request, send nothing for it. */
  cancel(legIndex: number, corrId: string): number {
    const job = this.jobs.get(`${legIndex}/${corrId}`);
    if (!job || job.cancelled) return 0;
    job.cancelled = true;
    const n = this.abortAtServe(job);
    // Our side of the call ends too, once the aborts are on their way.
    setImmediate(() => job.abort());
    return n;
  }

  /** Posts an abort to the serve for each rid of the job in flight; how many. */
  private abortAtServe(job: Job): number {
    const rids = [...job.rids];
    const serve = job.serve;
    if (serve) {
      for (const rid of rids) {
        postAbort(serve, rid, this.deps.agents.abort).catch((e: unknown) => this.deps.log.warn(`abort ${rid} failed: ${(e as Error).message}`));
      }
    }
    return rids.length;
  }

  /** Cancel everything (the engine is stopping). */
  cancelAll(): void {
    for (const key of [...this.jobs.keys()]) {
      const [leg, ...corr] = key.split('/');
      this.cancel(Number(leg), corr.join('/'));
    }
  }

  private async run(sink: ResponseSink, frame: ServeFrame, job: Job): Promise<void> {
    const d = this.deps;
    const now = d.now ?? Date.now;
    const receivedAt = now();
    const req = frame.request;
    const rec = this.newRecord(sink, frame, receivedAt);
    const requestId = rec.requestId;
    let serveUrl: string | null = null;
    const coalescer = frame.stream ? new DeltaCoalescer((delta) => void sink.send(chunkFrame(wireId(frame), delta)), d.flushMs ?? 50) : null;
    // Connected while the prompt is built (serve-socket-pool.ts says why); unused, it goes back to the pool.
    const reserved = d.agents.sockets.reserve(d.serves.peek());
    try {
      const prompt = await d.prompt.buildEarly(req).catch((e: unknown) => {
        // The template refused the buyer's messages: their request, their 4xx.
        throw new BadRequestError(`the chat template refused the request: ${errorMessage(e)}`);
      });
      rec.promptTokens = prompt.ids.length;
      const maxNew = maxNewTokens(req.max_tokens);
      job.check();
      serveUrl = d.serves.acquire();
      job.serve = serveUrl;
      const splitter = frame.stream ? new OutputSplitter(prompt.startsInReasoning, undefined, req.tools) : null;
      let sent = 0;
      const deliver =
        splitter && coalescer
          ? (cumulative: string) => {
              if (cumulative.length <= sent) return;
              coalescer.push(splitter.push(cumulative.slice(sent)));
              sent = cumulative.length;
            }
          : undefined;
      // A guessed prompt's text waits here until the tokenizer has confirmed the guess (EarlyPrompt).
      let confirmed = prompt.confirmed === null;
      let held: string | null = null;
      const onText = deliver
        ? (cumulative: string) => {
            if (confirmed) deliver(cumulative);
            else held = cumulative;
          }
        : undefined;
      const generate = (ids: number[], signal?: AbortSignal, first?: ReservedConnection): Promise<GenerationResult> =>
        // A budget of zero or less generates nothing, as in the reference: an empty, unproven answer.
        maxNew <= 0
          ? Promise.resolve(emptyGeneration())
          : generateChunked({
              onBytes: () => d.serves.touch(job.serve!, now()),
              serveUrl: serveUrl!,
              promptIds: ids,
              maxNew,
              job,
              signal,
              proof: d.proof,
              agent: d.agents.generate,
              sockets: d.agents.sockets,
              reserved: first,
              timeoutMs: d.timeoutMs,
              chunkTokens: d.chunkTokens,
              now,
              onText,
            });
      let promptIds = prompt.ids;
      let gen: GenerationResult;
      let confirmedAt: number | null = null;
      if (prompt.confirmed === null) gen = await generate(promptIds, undefined, reserved ?? undefined);
      else {
        // Sent with the guess at once; the tokenizer's answer decides what stands.
        const own = job.call();
        const early = generate(promptIds, own.signal, reserved ?? undefined);
        early.catch(() => undefined);
        let native: number[];
        try {
          native = await prompt.confirmed;
          job.check();
        } catch (e) {
          // A failed encode or a cancel: the early call ends before the request does.
          this.dropEarly(job, own);
          await early.catch(() => undefined);
          throw e;
        }
        if (sameIds(native, promptIds)) {
          confirmed = true;
          confirmedAt = now();
          if (held !== null) onText!(held);
          gen = await early;
        } else {
          d.log.warn(`the fast encoder's ids for request ${requestId} differed from the tokenizer's: sent again with the tokenizer's ids, and prompts wait for the tokenizer from now on`);
          this.dropEarly(job, own);
          await early.catch(() => undefined);
          job.check();
          promptIds = native;
          rec.promptTokens = native.length;
          confirmed = true;
          gen = await generate(promptIds);
        }
      }
      job.check();
      if (splitter && coalescer) coalescer.push(splitter.finish());
      const t0 = now();
      const commitment = await this.commit(promptIds, gen);
      rec.proofMs = now() - t0;
      job.check();
      const output = await this.output(gen, promptIds.length + gen.promptExtra.length, prompt.startsInReasoning, req.tools, splitter?.toolCalls.map((c) => c.id) ?? []);
      coalescer?.close();
      const end = now();
      rec.e2eMs = end - receivedAt;
      rec.completionTokens = gen.rowCount;
      rec.promptTokens = commitment.toploc.prompt_ids.length;
      rec.cachedTokens = output.usage.prompt_tokens_details?.cached_tokens ?? 0;
      rec.finishReason = output.choices[0]!.finish_reason;
      // Without a stream the buyer's first token arrives with the whole answer; with a guessed prompt, not before the tokenizer confirmed it.
      rec.ttftMs = gen.firstTokenAt !== null ? Math.max(gen.firstTokenAt, confirmedAt ?? 0) - receivedAt : rec.e2eMs;
      const n = gen.outputIds.length + gen.promptExtra.length;
      rec.tpotMs = gen.firstTokenAt !== null && gen.lastTokenAt !== null && n > 1 ? (gen.lastTokenAt - gen.firstTokenAt) / (n - 1) : null;
      if (!sink.send(responseFrame(wireId(frame), requestId, commitment, output))) {
        rec.outcome = 'error';
        rec.cause = 'the leg closed before the answer could be sent';
      } else d.onServed?.({ requestId, serveUrl, commitment });
    } catch (e) {
      coalescer?.close(false);
      rec.e2eMs = now() - receivedAt;
      if (e instanceof CancelledError || job.cancelled) {
        rec.outcome = 'cancelled';
        rec.cause = 'cancelled by the gateway';
      } else {
        rec.outcome = 'error';
        rec.cause = shortCause(e);
        d.log.warn(`serve error ${frame.corr_id}: ${rec.cause}`);
        if (serveUrl) d.onServeFailure?.(serveUrl);
        sink.send(errorResponseFrame(wireId(frame), requestId, { ...responseErrorOf(e), message: rec.cause }));
      }
    } finally {
      reserved?.giveBack();
      if (serveUrl) d.serves.release(serveUrl);
      d.onRecord(rec);
    }
  }

  /** Ends a call sent with an overruled prompt guess: its serve rids aborted, our side closed; the job goes on. */
  private dropEarly(job: Job, own: AbortController): void {
    this.abortAtServe(job);
    own.abort();
  }

  private async commit(promptIds: number[], gen: GenerationResult): Promise<Commitment> {
    // The only call's proofs were built as its body was parsed; several calls' rows are proven here.
    const proofs = gen.proofs ?? (gen.rows.length === 0 ? [] : await this.deps.proof.buildProofs(gen.rows, TOPK, DECODE_BATCHING));
    return {
      model_root: this.deps.modelRoot,
      output_token_ids: gen.outputIds,
      toploc: { proofs, topk: TOPK, decode_batching_size: DECODE_BATCHING, skip_prefill: true, n_tokens: gen.rowCount, prompt_ids: [...promptIds, ...gen.promptExtra] },
    };
  }

  private async output(gen: GenerationResult, promptTokens: number, startsInReasoning: boolean, tools: unknown, streamedIds: string[]): Promise<CompletionOutput> {
    // Rowless leading tokens are not proven or counted, but the buyer still gets their text.
    const text = await this.deps.prompt.decode([...gen.promptExtra, ...gen.outputIds]);
    // The final message names each call by the id its streamed delta carried.
    let n = 0;
    const { message, finish } = assembleMessage(text, tools, startsInReasoning, gen.truncated, () => streamedIds[n++] ?? randomCallId());
    const completion = gen.rowCount;
    const usage: CompletionOutput['usage'] = { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion };
    const cached = Math.min(gen.cachedTokens, promptTokens);
    if (cached > 0) usage.prompt_tokens_details = { cached_tokens: cached };
    return { choices: [{ index: 0, finish_reason: finish, message }], usage };
  }
}

/** The corr_id as the gateway sent it (the reference echoes a number as a number). */
function wireId(frame: ServeFrame): CorrId {
  return frame.wireCorrId !== undefined ? frame.wireCorrId : frame.corr_id;
}

function emptyGeneration(): GenerationResult {
  return { outputIds: [], rows: [], rowCount: 0, proofs: null, promptExtra: [], cachedTokens: 0, lastFinish: null, truncated: false, firstTokenAt: null, lastTokenAt: null };
}

function randomCallId(): string {
  return `call_${randomId().slice(0, 24)}`;
}

function randomId(): string {
  return globalThis.crypto.randomUUID().replace(/-/g, '');
}

function shortCause(e: unknown): string {
  const m = errorMessage(e);
  return m.length > 300 ? m.slice(0, 297) + '...' : m;
}
