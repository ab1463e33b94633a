// TEST DOUBLE (fake sglang): the HTTP routes of sglang's http_server that engy panel touches:
// /generate (JSON and SSE), /abort_request, /health, /health_generate, /model_info,
// /server_info (and their old /get_* names), /get_load, /v1/models, /flush_cache, /metrics.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { FakeServeArgs } from './args.ts';
import type { FakeEngine, GenerateRequest, ReqProgress } from './engine.ts';
import { metricsText } from './metrics.ts';
import type { PrefixCache } from './prefix-cache.ts';
import { writeGenerateObject, type HiddenMode, type Sink } from './response-json.ts';
import { log } from './startup-log.ts';
import { errorMessage } from '../../../shared/errors.ts';

export interface ServeState {
  args: FakeServeArgs;
  engine: FakeEngine;
  cache: PrefixCache;
  ready: boolean;
  draining: boolean;
  trimActive: boolean;
  contextLength: number;
  maxTotalTokens: number;
  encode: (text: string) => Promise<number[]>;
  decode: (ids: number[]) => string;
  modelType: string;
  architectures: string[];
  /** `--timing-log`: one line per streamed /generate, written as it ends (bench diagnostics). */
  timing: ((line: string) => void) | null;
  /** Called after each healthy /health_generate answer (`--crash-after-healthy-s` starts its timer there). */
  onHealthy?: () => void;
}

/** Epoch ms with sub-ms precision: comparable with other processes' on the same machine. */
const absNow = (): number => performance.timeOrigin + performance.now();

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 400: 'Bad Request', 404: 'Not Found', 500: 'Internal Server Error', 503: 'Service Unavailable' };

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function sinkOf(res: ServerResponse): Sink {
  return {
    write: (chunk) =>
      new Promise<void>((resolve) => {
        if (res.destroyed || res.write(chunk)) return resolve();
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  const v: unknown = JSON.parse(text);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new HttpError(400, 'request body must be a JSON object');
  return v as Record<string, unknown>;
}

const isIntArray = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x));

async function toRequest(s: ServeState, body: Record<string, unknown>): Promise<GenerateRequest & { returnLogprob: boolean }> {
  const hasText = typeof body.text === 'string';
  const hasIds = body.input_ids !== undefined && body.input_ids !== null;
  if (hasText === hasIds) throw new HttpError(400, 'Either text, input_ids or input_embeds should be provided.');
  if (hasIds && !isIntArray(body.input_ids)) throw new HttpError(400, 'fake sglang: input_ids must be one flat list of token ids (batches are not supported)');
  const inputIds = hasIds ? (body.input_ids as number[]) : await s.encode(body.text as string);
  const sp = (typeof body.sampling_params === 'object' && body.sampling_params !== null ? body.sampling_params : {}) as Record<string, unknown>;
  const maxNew = typeof sp.max_new_tokens === 'number' ? sp.max_new_tokens : 128;
  const stop = typeof sp.stop === 'string' ? [sp.stop] : Array.isArray(sp.stop) ? sp.stop.filter((x): x is string => typeof x === 'string') : [];
  const returnHiddenStates = body.return_hidden_states === true;
  if (returnHiddenStates && !s.args.enableReturnHiddenStates) {
    throw new HttpError(400, 'The server is not configured to return the hidden states. Please set `--enable-return-hidden-states` to enable this feature.');
  }
  if (inputIds.length === 0) throw new HttpError(400, 'The input_ids is empty.');
  if (inputIds.length >= s.contextLength) {
    throw new HttpError(400, `The input (${inputIds.length} tokens) is longer than the model's context length (${s.contextLength} tokens).`);
  }
  if (inputIds.length + maxNew > s.contextLength) {
    throw new HttpError(
      400,
      `Requested token count exceeds the model's maximum context length of ${s.contextLength} tokens. You requested a total of ${inputIds.length + maxNew} tokens: ${inputIds.length} tokens from the input messages and ${maxNew} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`,
    );
  }
  const rid = typeof body.rid === 'string' ? body.rid : randomUUID().replaceAll('-', '');
  if (s.engine.isLive(rid)) throw new HttpError(400, `Duplicate request ID detected: ${rid}`);
  return {
    rid,
    inputIds,
    maxNewTokens: maxNew,
    stop,
    stopTokenIds: isIntArray(sp.stop_token_ids) ? sp.stop_token_ids : [],
    ignoreEos: sp.ignore_eos === true,
    returnHiddenStates,
    returnLogprob: body.return_logprob === true,
    stream: body.stream === true,
  };
}

async function generate(s: ServeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const receivedAt = s.timing ? absNow() : 0;
  const r = await toRequest(s, await readJson(req));
  const readAt = s.timing ? absNow() : 0;
  const hidden: HiddenMode = !r.returnHiddenStates ? 'omit' : s.trimActive ? 'trimmed' : 'full';
  const opts = { returnLogprob: r.returnLogprob, hidden };
  log(
    `Prefill batch, #new-seq: 1, #new-token: ${r.inputIds.length - s.cache.match(r.inputIds)}, #cached-token: ${s.cache.match(r.inputIds)}, full token usage: 0.01, #running-req: ${s.engine.metrics.running}, #queue-req: ${s.engine.metrics.queued}`,
    true,
  );
  const sink = sinkOf(res);
  if (!r.stream) {
    const p = await s.engine.run(r, async () => {});
    res.writeHead(200, { 'content-type': 'application/json' });
    await writeGenerateObject(sink, p, opts);
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  // sglang aborts a streamed request whose client went away.
  res.on('close', () => {
    if (!res.writableFinished) s.engine.abort(r.rid);
  });
  let firstEventAt = 0;
  const onEvent = async (p: ReqProgress): Promise<void> => {
    if (firstEventAt === 0 && s.timing) firstEventAt = absNow();
    await sink.write('data: ');
    await writeGenerateObject(sink, p, opts);
    await sink.write('\n\n');
  };
  const p = await s.engine.run(r, onEvent);
  // An abort that landed while queued or before prefill produced no event yet.
  if (p.finish?.type === 'abort' && p.outputIds.length === 0) await onEvent(p);
  await sink.write('data: [DONE]\n\n');
  res.end();
  // rid, then when the handler began (headers read), the body was parsed, the first event was written, the last.
  s.timing?.(`${r.rid}\t${receivedAt.toFixed(3)}\t${readAt.toFixed(3)}\t${firstEventAt.toFixed(3)}\t${absNow().toFixed(3)}\n`);
}

function serverInfo(s: ServeState): Record<string, unknown> {
  const a = s.args;
  return {
    model_path: a.modelPath,
    tokenizer_path: a.modelPath,
    served_model_name: a.servedModelName ?? a.modelPath,
    tp_size: a.tpSize,
    dp_size: 1,
    mem_fraction_static: a.memFractionStatic ?? 0.83,
    kv_cache_dtype: a.kvCacheDtype,
    context_length: a.contextLength,
    max_running_requests: s.engine.maxRunning,
    chunked_prefill_size: a.chunkedPrefillSize ?? -1,
    enable_return_hidden_states: a.enableReturnHiddenStates,
    enable_cache_report: a.enableCacheReport,
    enable_metrics: a.enableMetrics,
    host: a.host,
    port: a.port,
    cpu_offload_gb: a.cpuOffloadGb,
    disable_custom_all_reduce: a.disableCustomAllReduce,
    stream_interval: a.streamInterval,
    incremental_streaming_output: false,
    status: s.ready ? 'ready' : 'starting',
    max_total_num_tokens: s.maxTotalTokens,
    max_req_input_len: Math.min(s.contextLength, s.maxTotalTokens) - 6,
    internal_states: [
      {
        last_gen_throughput: s.engine.metrics.lastGenThroughput,
        memory_usage: { weight: 8.85, kvcache: 5.0, token_capacity: s.maxTotalTokens, graph: 0.26 },
        effective_max_running_requests_per_dp: s.engine.maxRunning,
      },
    ],
    version: a.sglangVersion,
  };
}

export async function route(s: ServeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (s.engine.hung) return; // --hang: accept the connection, never answer
  const path = (req.url ?? '/').split('?')[0]!;
  const method = req.method ?? 'GET';
  // uvicorn's access log line, once the response has gone out.
  res.on('finish', () =>
    log(`INFO:     ${req.socket.remoteAddress ?? '127.0.0.1'}:${req.socket.remotePort ?? 0} - "${method} ${req.url ?? '/'} HTTP/1.1" ${res.statusCode} ${STATUS_TEXT[res.statusCode] ?? ''}`.trimEnd()),
  );
  try {
    if (path === '/generate' && (method === 'POST' || method === 'PUT')) return await generate(s, req, res);
    if (path === '/health' || path === '/ping') return void res.writeHead(s.ready && !s.draining ? 200 : 503).end();
    if (path === '/health_generate') {
      if (!s.ready || s.draining) return void res.writeHead(503).end();
      const rid = `HEALTH_CHECK_${Date.now()}_${Math.random().toString(16).slice(2)}`;
      await s.engine.run({ rid, inputIds: [0], maxNewTokens: 1, stop: [], stopTokenIds: [], ignoreEos: false, returnHiddenStates: false, stream: false }, async () => {});
      res.writeHead(200).end();
      return void s.onHealthy?.();
    }
    if (path === '/model_info' || path === '/get_model_info') {
      if (path === '/get_model_info') log("Endpoint '/get_model_info' is deprecated and will be removed in a future version. Please use '/model_info' instead.");
      return json(res, 200, {
        model_path: s.args.modelPath,
        tokenizer_path: s.args.modelPath,
        is_generation: true,
        preferred_sampling_params: null,
        weight_version: 'default',
        has_image_understanding: false,
        has_audio_understanding: false,
        model_type: s.modelType,
        architectures: s.architectures,
      });
    }
    if (path === '/server_info' || path === '/get_server_info') return json(res, 200, serverInfo(s));
    // One entry per scheduler (dp rank), as sglang's /get_load answers; the KV held is the cache's.
    if (path === '/get_load') {
      const m = s.engine.metrics;
      return json(res, 200, [{ dp_rank: 0, num_reqs: m.running, num_waiting_reqs: m.queued, num_tokens: s.cache.cachedTokens, num_pending_tokens: 0 }]);
    }
    if ((path === '/v1/tokenize' || path === '/tokenize') && method === 'POST') {
      const body = await readJson(req);
      if (typeof body.prompt !== 'string') throw new HttpError(400, 'fake sglang: prompt must be a string');
      const tokens = await s.encode(body.prompt);
      return json(res, 200, { tokens, count: tokens.length, max_model_len: s.contextLength });
    }
    if ((path === '/v1/detokenize' || path === '/detokenize') && method === 'POST') {
      const body = await readJson(req);
      if (!isIntArray(body.tokens)) throw new HttpError(400, 'fake sglang: tokens must be a list of token ids');
      return json(res, 200, { text: s.decode(body.tokens) });
    }
    if (path === '/v1/models') {
      const id = s.args.servedModelName ?? s.args.modelPath;
      return json(res, 200, { object: 'list', data: [{ id, object: 'model', created: 0, owned_by: 'sglang', root: s.args.modelPath, max_model_len: s.contextLength }] });
    }
    if (path === '/abort_request' && method === 'POST') {
      const body = await readJson(req);
      if (body.abort_all === true) s.engine.abort(null);
      else if (typeof body.rid === 'string') s.engine.abort(body.rid);
      return void res.writeHead(200).end();
    }
    if (path === '/flush_cache') {
      if (s.engine.metrics.running > 0 || s.engine.metrics.queued > 0)
        return void res.writeHead(400).end('Cache not flushed. Please check backend logs for more details. (When there are running or waiting requests, the operation will not be performed.)\n');
      s.cache.flush();
      return void res.writeHead(200).end('Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, the operation will not be performed.)\n');
    }
    if (path === '/metrics' && s.args.enableMetrics) {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      return void res.end(metricsText(s.engine, s.args.servedModelName ?? s.args.modelPath, s.maxTotalTokens, s.cache.cachedTokens));
    }
    json(res, 404, { detail: 'Not Found' });
  } catch (e) {
    const status = e instanceof HttpError ? e.status : e instanceof SyntaxError ? 400 : 500;
    if (!res.headersSent) json(res, status, { error: { message: errorMessage(e) } });
    else res.end();
  }
}
