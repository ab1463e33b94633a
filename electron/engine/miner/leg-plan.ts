// Which gateway workers to dial and what each leg declares (PROTOCOL 3).
import { describeNetworkError } from '../lib/network-words.ts';

export const REQUIRED_LEGS = 8;

export interface LegPlan {
  /** Gateway worker processes, from `/meta`. */
  workers: number;
  /** The worker indices this miner dials, ascending. */
  indices: number[];
  /** `max_inflight` each leg advertises. */
  perLeg: number;
  /** The undivided total, sent on every leg as `max_inflight_total`. */
  total: number;
}

/**
 * total >= N: one leg per worker at floor(total / N). total < N: `total` legs at 1 each on a
 * random subset, so small miners do not all pile onto worker 0.
 */
export function planLegs(workers: number, total: number, random: () => number = Math.random): LegPlan {
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`gateway worker count must be a positive integer, got ${workers}`);
  const t = Math.max(1, Math.floor(total));
  if (t >= workers) return { workers, indices: range(workers), perLeg: Math.floor(t / workers), total: t };
  const pool = range(workers);
  // Partial Fisher-Yates: the first t slots become a uniform random subset.
  for (let i = 0; i < t; i++) {
    const j = i + Math.floor(random() * (workers - i));
    const a = pool[i]!;
    pool[i] = pool[j]!;
    pool[j] = a;
  }
  return { workers, indices: pool.slice(0, t).sort((a, b) => a - b), perLeg: 1, total: t };
}

/** Plain words when the plan cannot onboard: the gateway probes a worker only with all 8 legs live. */
export function legPlanWarning(plan: LegPlan): string | null {
  if (plan.indices.length < REQUIRED_LEGS) {
    return `only ${plan.indices.length} of the ${REQUIRED_LEGS} legs the gateway requires: it will not probe or onboard this worker ("offered ${plan.indices.length} distinct clean legs, below the required ${REQUIRED_LEGS}"); declare at least ${REQUIRED_LEGS * 3} in flight`;
  }
  if (plan.perLeg < 3) return `${plan.perLeg} per leg: operators saw fewer than 3 per leg onboard only part of the legs; declare at least ${plan.workers * 3} in flight`;
  return null;
}

export function workerUrl(gateway: string, index: number, workers: number): string {
  const base = gateway.replace(/\/+$/, '');
  return workers <= 1 ? base : `${base}/${index}`;
}

export function metaUrl(gateway: string): string {
  const base = gateway.replace(/\/+$/, '').replace(/^wss:/, 'https:').replace(/^ws:/, 'http:');
  return `${base}/meta`;
}

export type FetchLike = (url: string, init?: { signal?: AbortSignal }) => Promise<{ ok: boolean; status: number; json(): Promise<unknown>; body?: ReadableStream<Uint8Array> | null }>;

/** The most legs a miner opens, whatever `/meta` says (the reference caps at 64 too). */
export const MAX_GATEWAY_WORKERS = 64;
/** `{"workers": N}` is a few bytes; a body past this is not a worker count and is not read further. */
export const MAX_META_BYTES = 4096;

/** The body as JSON, reading at most `limit` bytes: a hostile or broken `/meta` cannot fill memory. */
async function cappedJson(res: Awaited<ReturnType<FetchLike>>, limit: number, signal: AbortSignal): Promise<unknown> {
  if (!res.body) return res.json();
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      if (signal.aborted) throw new Error('timed out');
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw new Error(`answer larger than ${limit} bytes`);
      parts.push(value);
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown;
}

/**
 * Reads `{"workers": N}`, clamped to 1..64. Throws with a plain sentence when it cannot: falling
 * back to one leg would get that leg refused, so the caller must say so and retry instead.
 */
export async function readGatewayWorkers(gateway: string, fetchFn: FetchLike, timeoutMs = 5000): Promise<number> {
  const url = metaUrl(gateway);
  let body: unknown;
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const res = await fetchFn(url, { signal });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = await cappedJson(res, MAX_META_BYTES, signal);
  } catch (e) {
    // In words (never "fetch failed"): what failed, why, what to check; the caller retries.
    throw new Error(
      `Cannot read the gateway's worker count from ${url}: ${describeNetworkError(e)}. Check the connection and the gateway address in Settings; not dialing a single leg, which the gateway would refuse`,
      { cause: e },
    );
  }
  const n = typeof body === 'object' && body !== null ? (body as { workers?: unknown }).workers : undefined;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 1) {
    throw new Error(`the gateway's ${url} answered without a usable "workers" count (${JSON.stringify(body).slice(0, 80)})`);
  }
  return Math.min(Math.floor(n), MAX_GATEWAY_WORKERS);
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
