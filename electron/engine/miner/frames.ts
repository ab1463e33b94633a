// The gateway pool protocol's frames (PROTOCOL 3): builders for what the miner sends, a
// validating parser for what it receives. The gateway double imports this file too, so the
// two sides cannot drift apart silently; the frame-keys test pins both against PROTOCOL.

export interface Capacity {
  max_inflight: number;
  max_inflight_total: number;
  max_input_tokens: number;
  max_output_tokens: number;
  max_request_s: number;
}

export interface HelloHw {
  host: string;
  cpus: number;
  ram_gb: number;
  gpu: string;
  gpu_count: number;
  gpu_mem_gb: number;
  gpus: string;
  parallelism: string;
}

export interface HelloFrame {
  type: 'hello';
  miner_key: string;
  model: string;
  model_root: string;
  hw: HelloHw;
  versions: Record<string, string>;
  capacity: Capacity;
  worker_name: string;
  instance_id: string;
  worker_id: string;
}

import type { KvLoad } from '../../../shared/miner.ts';
import { pyTruthy } from './request-fields.ts';
export type { KvLoad };

export interface HeartbeatFrame {
  type: 'heartbeat';
  inflight: number;
  idle_seconds: number;
  capacity: Capacity;
  /** Only when the serve exposes `/get_load`; absent keeps the gateway's last value. */
  kv?: KvLoad;
}

/** OpenAI-style streamed delta: the same keys as the final message. */
export interface StreamDelta {
  content?: string;
  reasoning_content?: string;
  tool_calls?: ToolCallDelta[];
}

export interface ToolCallDelta {
  index: number;
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A corr_id on the wire: the gateway sends strings; the reference answers a number (or null) as it came. */
export type CorrId = string | number | boolean | null;

export interface ChunkFrame {
  type: 'chunk';
  corr_id: CorrId;
  delta: StreamDelta;
}

export interface Commitment {
  model_root: string;
  output_token_ids: number[];
  toploc: {
    proofs: string[];
    topk: number;
    decode_batching_size: number;
    skip_prefill: boolean;
    n_tokens: number;
    prompt_ids: number[];
  };
}

/** A call in the final message: the reference writes no `index` there (only stream deltas carry it). */
export interface MessageToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Key order is the reference's (role, content, tool_calls, reasoning_content): the JSON is compared byte for byte. */
export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: MessageToolCall[];
  reasoning_content?: string;
}

export interface CompletionOutput {
  choices: { index: 0; finish_reason: 'stop' | 'length' | 'tool_calls'; message: AssistantMessage }[];
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details?: { cached_tokens: number };
  };
}

/**
 * A failed request's `error`, as the newer reference worker sends it: `status` is the HTTP
 * status the gateway relays (a 4xx is the buyer's fault and does not count against the miner);
 * null when the failure has no status of its own (a serve that cannot be reached, a proof).
 */
export interface ResponseError {
  message: string;
  type: string;
  status: number | null;
}

export interface ResponseFrame {
  type: 'response';
  corr_id: CorrId;
  request_id: string;
  commitment: Commitment | null;
  output: CompletionOutput | Record<string, never>;
  error?: ResponseError;
}

export type MinerFrame = HelloFrame | HeartbeatFrame | ChunkFrame | ResponseFrame;

export interface ServeRequest {
  messages: unknown[];
  max_tokens?: number | null;
  engy_request_id?: string;
  tools?: unknown[];
  chat_template_kwargs?: Record<string, unknown>;
  [key: string]: unknown;
}

export type GatewayFrame =
  | { type: 'admit' }
  | { type: 'deny'; reason: string }
  /** `corr_id` keys the request inside the miner; `wireCorrId` is a non-string id as sent, echoed back. */
  | { type: 'serve'; corr_id: string; wireCorrId?: number | boolean | null; request: ServeRequest; stream: boolean }
  | { type: 'cancel'; corr_id: string }
  | { type: 'ping' }
  | { type: 'reconnect' };

export const MAX_ERROR_CHARS = 300;

export function helloFrame(f: Omit<HelloFrame, 'type' | 'instance_id'>): HelloFrame {
  // instance_id repeats worker_name: older gateways key on it.
  return {
    type: 'hello',
    miner_key: f.miner_key,
    model: f.model,
    model_root: f.model_root,
    hw: f.hw,
    versions: f.versions,
    capacity: f.capacity,
    worker_name: f.worker_name,
    instance_id: f.worker_name,
    worker_id: f.worker_id,
  };
}

export function heartbeatFrame(inflight: number, idleSeconds: number, capacity: Capacity, kv: KvLoad | null = null): HeartbeatFrame {
  const f: HeartbeatFrame = { type: 'heartbeat', inflight, idle_seconds: Math.round(idleSeconds * 10) / 10, capacity };
  if (kv) f.kv = kv;
  return f;
}

export function chunkFrame(corrId: CorrId, delta: StreamDelta): ChunkFrame {
  return { type: 'chunk', corr_id: corrId, delta };
}

export function responseFrame(corrId: CorrId, requestId: string, commitment: Commitment, output: CompletionOutput): ResponseFrame {
  return { type: 'response', corr_id: corrId, request_id: requestId, commitment, output };
}

export function errorResponseFrame(corrId: CorrId, requestId: string, error: ResponseError): ResponseFrame {
  const m = error.message;
  const message = m.length > MAX_ERROR_CHARS ? m.slice(0, MAX_ERROR_CHARS) : m;
  return { type: 'response', corr_id: corrId, request_id: requestId, commitment: null, output: {}, error: { message, type: error.type, status: error.status } };
}

function isScalarId(v: unknown): v is CorrId {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses one text frame from the gateway; unknown or malformed frames give a reason, not a throw. */
export type ParsedGatewayFrame =
  | { ok: true; frame: GatewayFrame }
  /** `corrId` (and `requestId`) when the frame was a serve that can still be answered with an error. */
  | { ok: false; reason: string; corrId?: CorrId; requestId?: string };

export function parseGatewayFrame(text: string): ParsedGatewayFrame {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'frame is not JSON' };
  }
  if (!isObject(v) || typeof v.type !== 'string') return { ok: false, reason: 'frame has no type' };
  switch (v.type) {
    case 'admit':
    case 'ping':
    case 'reconnect':
      return { ok: true, frame: { type: v.type } };
    case 'deny':
      return { ok: true, frame: { type: 'deny', reason: typeof v.reason === 'string' ? v.reason : JSON.stringify(v.reason ?? 'no reason given') } };
    case 'cancel':
      if (!isScalarId(v.corr_id)) return { ok: false, reason: 'cancel without corr_id' };
      return { ok: true, frame: { type: 'cancel', corr_id: String(v.corr_id) } };
    case 'serve': {
      const requestId = isObject(v.request) && typeof v.request.engy_request_id === 'string' ? { requestId: v.request.engy_request_id } : {};
      // As the reference: no corr_id at all, or an object or list, cannot be answered; a number,
      // boolean or null is served and answered under the same JSON value.
      if (!('corr_id' in v)) return { ok: false, reason: 'serve without corr_id' };
      if (!isScalarId(v.corr_id)) return { ok: false, reason: 'serve corr_id is not a string' };
      const key = String(v.corr_id);
      const wire = typeof v.corr_id === 'string' ? {} : { wireCorrId: v.corr_id };
      if (!isObject(v.request) || !Array.isArray(v.request.messages)) return { ok: false, reason: 'serve without request.messages', corrId: v.corr_id, ...requestId };
      // `stream` as the reference reads it: Python truthiness ("yes" and 1 stream, 0 and "" do not).
      return { ok: true, frame: { type: 'serve', corr_id: key, ...wire, request: v.request as ServeRequest, stream: pyTruthy(v.stream) } };
    }
    default:
      return { ok: false, reason: `unknown frame type "${v.type}"` };
  }
}

/** Parses a frame the miner sent (the gateway double's side). */
export function parseMinerFrame(text: string): MinerFrame | null {
  try {
    const v: unknown = JSON.parse(text);
    if (!isObject(v)) return null;
    if (v.type === 'hello' || v.type === 'heartbeat' || v.type === 'chunk' || v.type === 'response') return v as unknown as MinerFrame;
    return null;
  } catch {
    return null;
  }
}
