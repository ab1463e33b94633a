// TEST DOUBLE (fake sglang): the scheduler side. Admits up to max-running-requests at once
// (the rest wait in a FIFO queue), prefills against the radix cache, decodes greedily at the
// configured pace, honours /abort_request, and keeps the counters /metrics reports.
import type { FakeServeArgs } from './args.ts';
import type { FakeModel, ModelState } from './model.ts';
import type { PrefixCache } from './prefix-cache.ts';
import type { Detokenizer } from './detokenizer.ts';
import { perturbRow } from './perturb.ts';
import { log } from './startup-log.ts';
import { AUDIT_RID_PREFIX } from '../../../electron/engine/serve/trim-module.ts';

// sglang's default --decode-log-interval.
const DECODE_LOG_INTERVAL = 40;

export interface GenerateRequest {
  rid: string;
  inputIds: number[];
  maxNewTokens: number;
  stop: string[];
  stopTokenIds: number[];
  ignoreEos: boolean;
  returnHiddenStates: boolean;
  stream: boolean;
}

export type FinishReason = { type: 'stop'; matched: number | string } | { type: 'length'; length: number } | { type: 'abort'; message: string; status_code: null; err_type: null };

export interface ReqProgress {
  rid: string;
  promptTokens: number;
  cachedTokens: number;
  outputIds: number[];
  logprobs: number[];
  /** Rows for the prompt positions the prefill computed (empty on a full prefix hit). */
  prefillRows: Float32Array[];
  /** One row per decode step (output tokens 1..n-1). */
  decodeRows: Float32Array[];
  finish: FinishReason | null;
  /** Text with a matched stop string cut off, as sglang reports it. */
  text: string;
  startedAt: number;
}

export interface EngineMetrics {
  running: number;
  queued: number;
  promptTokensTotal: number;
  generationTokensTotal: number;
  cachedTokensTotal: number;
  requestsTotal: number;
  abortedTotal: number;
  ttft: number[];
  itl: number[];
  e2e: number[];
  lastGenThroughput: number;
}

interface Live {
  aborted: boolean;
  wake: (() => void) | null;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class FakeEngine {
  readonly metrics: EngineMetrics = {
    running: 0,
    queued: 0,
    promptTokensTotal: 0,
    generationTokensTotal: 0,
    cachedTokensTotal: 0,
    requestsTotal: 0,
    abortedTotal: 0,
    ttft: [],
    itl: [],
    e2e: [],
    lastGenThroughput: 0,
  };
  hung = false;
  private readonly live = new Map<string, Live>();
  private readonly waiters: Array<() => void> = [];
  private readonly args: FakeServeArgs;
  private readonly model: FakeModel;
  private readonly cache: PrefixCache;
  private readonly detok: Detokenizer;
  readonly maxRunning: number;
  private readonly trimPrefill: boolean;

  constructor(args: FakeServeArgs, model: FakeModel, cache: PrefixCache, detok: Detokenizer, trimPrefill: boolean) {
    this.trimPrefill = trimPrefill;
    this.args = args;
    this.model = model;
    this.cache = cache;
    this.detok = detok;
    this.maxRunning = args.maxRunningRequests ?? 8;
  }

  isLive(rid: string): boolean {
    return this.live.has(rid);
  }

  abort(rid: string | null): void {
    for (const [id, l] of this.live) {
      if (rid === null || id === rid) {
        l.aborted = true;
        l.wake?.();
      }
    }
  }

  get cacheHitRate(): number {
    const m = this.metrics;
    return m.promptTokensTotal === 0 ? 0 : m.cachedTokensTotal / m.promptTokensTotal;
  }

  /** Runs one request; calls onEvent for every event sglang would flush to the client. */
  async run(req: GenerateRequest, onEvent: (p: ReqProgress) => Promise<void>): Promise<ReqProgress> {
    const live: Live = { aborted: false, wake: null };
    this.live.set(req.rid, live);
    const p: ReqProgress = {
      rid: req.rid,
      promptTokens: req.inputIds.length,
      cachedTokens: 0,
      outputIds: [],
      logprobs: [],
      prefillRows: [],
      decodeRows: [],
      finish: null,
      text: '',
      startedAt: performance.now(),
    };
    this.metrics.requestsTotal += 1;
    try {
      if (!(await this.acquire(live))) return this.finishAbort(p, 'Abort in waiting queue');
      try {
        await this.decodeLoop(req, p, live, onEvent);
      } finally {
        this.release();
      }
      return p;
    } finally {
      this.live.delete(req.rid);
    }
  }

  /** Takes a running slot, waiting in FIFO order; false when aborted while still queued. */
  private async acquire(live: Live): Promise<boolean> {
    if (this.metrics.running < this.maxRunning) {
      this.metrics.running += 1;
      return true;
    }
    this.metrics.queued += 1;
    let granted = false;
    let grant = (): void => {};
    await new Promise<void>((resolve) => {
      grant = (): void => {
        granted = true;
        resolve();
      };
      this.waiters.push(grant);
      live.wake = resolve; // an abort wakes it without a slot
    });
    live.wake = null;
    this.metrics.queued -= 1;
    if (!granted) {
      const i = this.waiters.indexOf(grant);
      if (i >= 0) this.waiters.splice(i, 1);
    }
    return granted;
  }

  private release(): void {
    const next = this.waiters.shift();
    // Hand the slot straight to the next queued request, or give it back.
    if (next) next();
    else this.metrics.running -= 1;
  }

  private finishAbort(p: ReqProgress, message: string): ReqProgress {
    p.finish = { type: 'abort', message, status_code: null, err_type: null };
    this.metrics.abortedTotal += 1;
    return p;
  }

  private async pace(dueAt: number, live: Live): Promise<void> {
    // Sleep in slices so an abort lands promptly; skip sub-millisecond waits (batched pacing).
    for (;;) {
      if (live.aborted || this.hung) return;
      const left = dueAt - performance.now();
      if (left <= 1) return;
      await new Promise<void>((resolve) => {
        live.wake = resolve;
        setTimeout(resolve, Math.min(left, 50));
      });
      live.wake = null;
    }
  }

  private async decodeLoop(req: GenerateRequest, p: ReqProgress, live: Live, onEvent: (p: ReqProgress) => Promise<void>): Promise<void> {
    const m = this.model;
    const ids = req.inputIds;
    const matched = this.cache.match(ids);
    p.cachedTokens = matched;
    await this.pace(performance.now() + this.args.ttftMs, live);
    while (this.hung) await sleep(1000);
    if (live.aborted) {
      this.finishAbort(p, 'Abort before prefill');
      return;
    }
    const st: ModelState = m.initialState();
    // Stock sglang copies the prompt rows out of the LAST prefill forward only: with chunked
    // prefill that is the last chunk of the uncached tokens (SGLANG.md A2).
    const size = this.args.chunkedPrefillSize ?? -1;
    const chunk = size > 0 ? size : Infinity;
    const uncached = ids.length - matched;
    const firstRow = uncached <= 0 ? ids.length : ids.length - (((uncached - 1) % chunk) + 1);
    for (let i = 0; i < ids.length; i++) {
      m.advance(st, ids[i]!);
      // Trimmed serves never materialise the block: only the last prompt row survives, except for the
      // panel's self-audit request, which engy_trim leaves untrimmed (it spares that prefill batch).
      const wanted = i >= firstRow && (!this.trimPrefill || i === ids.length - 1 || req.rid.startsWith(AUDIT_RID_PREFIX));
      if (req.returnHiddenStates && wanted) p.prefillRows.push(this.emitRow(m.hiddenRow(st), st.pos));
    }
    let row = m.hiddenRow(st);
    this.metrics.promptTokensTotal += ids.length;
    this.metrics.cachedTokensTotal += matched;
    const stops = new Set([m.vocab.imEnd, m.vocab.endOfText, ...req.stopTokenIds]);
    const interval = 1000 / this.args.tokensPerS;
    let due = performance.now();
    let lastTokenAt = performance.now();
    for (;;) {
      const next = this.forcedByte(st.pos + 1) ?? m.nextToken(st, row, { ignoreEos: req.ignoreEos });
      p.outputIds.push(next.token);
      p.logprobs.push(next.logprob);
      this.metrics.generationTokensTotal += 1;
      if (this.metrics.generationTokensTotal % DECODE_LOG_INTERVAL === 0) this.logDecode();
      const now = performance.now();
      if (p.outputIds.length === 1) this.metrics.ttft.push((now - p.startedAt) / 1000);
      else this.metrics.itl.push((now - lastTokenAt) / 1000);
      lastTokenAt = now;
      p.finish = this.finishFor(req, p, next.token, stops);
      if (live.aborted && !p.finish) this.finishAbort(p, 'Abort in running batch');
      const n = p.outputIds.length;
      if (p.finish || (req.stream && (this.args.streamInterval === 1 || n % this.args.streamInterval === 1))) {
        // Mid-stream, sglang's incremental detokenizer holds back a trailing incomplete character.
        if (!p.finish) p.text = this.detok.decode(p.outputIds).replace(/\uFFFD+$/, '');
        await onEvent(p);
      }
      if (p.finish) break;
      m.advance(st, next.token);
      row = m.hiddenRow(st);
      if (req.returnHiddenStates) p.decodeRows.push(this.emitRow(row.slice(), st.pos));
      due += interval;
      await this.pace(due, live);
      while (this.hung) await sleep(1000);
    }
    const elapsed = (performance.now() - p.startedAt) / 1000;
    this.metrics.e2e.push(elapsed);
    this.metrics.lastGenThroughput = p.outputIds.length / Math.max(elapsed, 1e-3);
    // What stays in the tree: every token whose KV exists (not the last sampled one).
    if (p.finish?.type !== 'abort') this.cache.insert([...ids, ...p.outputIds.slice(0, -1)]);
  }

  private lastDecodeLogAt = performance.now();

  private logDecode(): void {
    const m = this.metrics;
    const now = performance.now();
    // Like sglang, the gauge is the decode rate over the last log interval.
    m.lastGenThroughput = DECODE_LOG_INTERVAL / Math.max((now - this.lastDecodeLogAt) / 1000, 1e-3);
    this.lastDecodeLogAt = now;
    const used = this.cache.cachedTokens;
    log(
      `Decode batch, #running-req: ${m.running}, #full token: ${used}, full token usage: ${(used / this.args.maxTotalTokens).toFixed(2)}, mamba num: ${m.running}, mamba usage: 0.00, cuda graph: True, gen throughput (token/s): ${m.lastGenThroughput.toFixed(2)}, #queue-req: ${m.queued}`,
      true,
    );
  }

  private finishFor(req: GenerateRequest, p: ReqProgress, token: number, stops: Set<number>): FinishReason | null {
    if (!req.ignoreEos && stops.has(token)) {
      p.text = this.detok.decode(p.outputIds);
      return { type: 'stop', matched: token };
    }
    if (req.stop.length > 0) {
      const text = this.detok.decode(p.outputIds);
      for (const s of req.stop) {
        const at = text.indexOf(s);
        if (s && at >= 0) {
          p.text = text.slice(0, at);
          return { type: 'stop', matched: s };
        }
      }
    }
    if (p.outputIds.length >= req.maxNewTokens) {
      p.text = this.detok.decode(p.outputIds);
      return { type: 'length', length: req.maxNewTokens };
    }
    return null;
  }

  private splitBytes: Map<number, number> | null = null;

  /** --split-char-at: the byte tokens of 中 (E4 B8 AD) at fixed positions, so a chunk boundary can split a character. */
  private forcedByte(pos: number): { token: number; logprob: number } | null {
    if (this.args.splitCharAt === null) return null;
    if (this.splitBytes === null) {
      this.splitBytes = new Map();
      for (const start of this.args.splitCharAt.split(',').map(Number)) {
        [0xe4, 0xb8, 0xad].forEach((b, i) => {
          const id = this.detok.byteToken(b);
          if (id !== undefined) this.splitBytes!.set(start + i, id);
        });
      }
    }
    const token = this.splitBytes.get(pos);
    return token === undefined ? null : { token, logprob: Math.fround(-0.000335) };
  }

  /** The row as this "GPU" reports it: honest, rounding-noised, or int4-quantised. */
  private emitRow(row: Float32Array, pos: number): Float32Array {
    return perturbRow(row, pos, { noise: this.args.numericsNoise, quantize: this.args.quantize, seed: this.args.seed });
  }
}
