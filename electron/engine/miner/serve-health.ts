// The health gate of one engine's serve (issue 32 item 1, after the newer reference worker's
// _HealthGate): every few seconds probe `/health`; a serve that refuses the connection or
// answers non-200 withdraws the engine's legs at once, two timed-out probes withdraw them only if
// the scheduler (`/get_load`) is silent too (sglang's /health waits on the detokenizer, which a
// busy healthy serve is often behind) or the stall has lasted 120 s; two good probes in a row
// bring the legs back. The same tick reads the serve's KV-cache use for the heartbeat's `kv`.
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { describeNetworkError } from '../lib/network-words.ts';
import type { KvLoad } from './frames.ts';

export type ProbeState = 'ok' | 'dead' | 'timeout';

export interface ProbeResult {
  state: ProbeState;
  /** Plain words for a state other than ok. */
  cause: string | null;
}

export interface HealthVerdict {
  withdrawn: boolean;
  /** Why the legs are withdrawn, in words ("the serve refused the connection"). */
  cause: string | null;
  since: number | null;
}

export type HealthFetch = (url: string, init: { signal: AbortSignal }) => Promise<{ status: number; json(): Promise<unknown> }>;

export const HEALTH_INTERVAL_MS = 5_000;
export const HEALTH_TIMEOUT_MS = 8_000;
export const OK_STREAK = 2;
export const FAIL_STREAK = 2;
export const STALL_MAX_MS = 120_000;
/** A body we read from a serve's probe routes; anything longer is not a probe answer. */
const MAX_PROBE_BODY = 256 * 1024;

/** One `/health` probe: refused or non-200 is `dead` (unambiguous, and fast); no answer in time is `timeout`. */
export async function probeHealth(url: string, fetchFn: HealthFetch, timeoutMs = HEALTH_TIMEOUT_MS): Promise<ProbeResult> {
  try {
    const res = await fetchFn(new URL('/health', url).href, { signal: AbortSignal.timeout(timeoutMs) });
    return res.status === 200 ? { state: 'ok', cause: null } : { state: 'dead', cause: `the serve's /health answered ${res.status}` };
  } catch (e) {
    const name = (e as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { state: 'timeout', cause: `the serve's /health gave no answer within ${Math.round(timeoutMs / 1000)} s` };
    return { state: 'dead', cause: `the serve cannot be reached: ${describeNetworkError(e)}` };
  }
}

/** The scheduler's own view (`/get_load`): true when the serve answers it with a list. */
export async function schedulerAlive(url: string, fetchFn: HealthFetch, timeoutMs = 3_000): Promise<boolean> {
  const v = await getJson(new URL('/get_load', url).href, fetchFn, timeoutMs);
  return Array.isArray(v);
}

/**
 * KV-cache use summed over the serve's schedulers (`/get_load`), against the pool size from
 * `/get_server_info` (max_total_num_tokens per decode-context-parallel rank). Null when the
 * serve does not expose `/get_load`; the gateway then judges on the in-flight count alone.
 */
export async function readKv(url: string, fetchFn: HealthFetch, poolCache: Map<string, number | null>, timeoutMs = 4_000): Promise<KvLoad | null> {
  const load = await getJson(new URL('/get_load', url).href, fetchFn, timeoutMs);
  if (!Array.isArray(load) || load.length === 0) return null;
  const kv: KvLoad = { used: 0, reqs: 0, waiting: 0, pending: 0, ranks: 0 };
  for (const x of load.slice(0, 1024)) {
    if (typeof x !== 'object' || x === null || Array.isArray(x)) continue;
    const r = x as Record<string, unknown>;
    kv.used += count(r.num_tokens);
    kv.reqs += count(r.num_reqs);
    kv.waiting += count(r.num_waiting_reqs);
    kv.pending += count(r.num_pending_tokens);
    kv.ranks += 1;
  }
  if (!poolCache.has(url)) {
    const info = await getJson(new URL('/get_server_info', url).href, fetchFn, timeoutMs);
    const o = typeof info === 'object' && info !== null && !Array.isArray(info) ? (info as Record<string, unknown>) : {};
    const pool = count(o.max_total_num_tokens) * Math.max(1, count(o.dcp_size));
    // Cached only once read: a serve still starting answers again later.
    if (info !== null) poolCache.set(url, pool > 0 ? pool : null);
  }
  const pool = poolCache.get(url) ?? null;
  if (pool !== null && kv.ranks > 0) {
    kv.limit = pool * kv.ranks;
    kv.frac = Math.round((kv.used / kv.limit) * 10_000) / 10_000;
  }
  return kv;
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(Math.floor(v), Number.MAX_SAFE_INTEGER) : 0;
}

async function getJson(url: string, fetchFn: HealthFetch, timeoutMs: number): Promise<unknown> {
  try {
    const res = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (res.status !== 200) return null;
    const v = await res.json();
    return JSON.stringify(v).length > MAX_PROBE_BODY ? null : v;
  } catch {
    return null;
  }
}

/** Folds probe outcomes into "withdrawn or not"; the clock measures how long a stall has lasted. */
export class HealthGate {
  private down = false;
  private cause: string | null = null;
  private downSince: number | null = null;
  private okStreak = 0;
  private failStreak = 0;
  private stallSince: number | null = null;
  private readonly clock: Clock;
  private readonly alive: () => Promise<boolean>;

  private readonly serving: () => boolean;

  /** `serving`: the serve is streaming our requests right now; a stall is then never a wedge. */
  constructor(clock: Clock, schedulerAliveFn: () => Promise<boolean>, serving: () => boolean = () => false) {
    this.clock = clock;
    this.alive = schedulerAliveFn;
    this.serving = serving;
  }

  get verdict(): HealthVerdict {
    return { withdrawn: this.down, cause: this.cause, since: this.downSince };
  }

  /** One probe outcome; returns true while the legs must stay withdrawn. */
  async update(p: ProbeResult): Promise<boolean> {
    if (p.state === 'ok') {
      this.okStreak += 1;
      this.failStreak = 0;
      this.stallSince = null;
      if (this.down && this.okStreak >= OK_STREAK) {
        this.down = false;
        this.cause = null;
        this.downSince = null;
      }
      return this.down;
    }
    this.okStreak = 0;
    this.failStreak += 1;
    const now = this.clock.now();
    this.stallSince ??= now;
    if (this.down) {
      // Still sick: keep the first cause, say the newest if it changed kind.
      if (p.cause) this.cause = p.cause;
      return true;
    }
    const why = await this.reason(p, now - this.stallSince);
    if (why) {
      this.down = true;
      this.cause = why;
      this.downSince = now;
    }
    return this.down;
  }

  private async reason(p: ProbeResult, stalledMs: number): Promise<string | null> {
    if (p.state === 'dead') return p.cause ?? 'the serve is down';
    if (this.failStreak < FAIL_STREAK || this.serving()) return null;
    if (!(await this.alive())) return `${p.cause ?? "the serve's /health gave no answer"} (${this.failStreak} times) and its scheduler (/get_load) is silent too`;
    if (stalledMs >= STALL_MAX_MS) return `the serve's /health has stalled for ${Math.round(stalledMs / 1000)} s although /get_load answers: a wedged serve`;
    return null;
  }
}

export interface ServeWatchOptions {
  url: string;
  /** When the serve last sent bytes of one of our generations (null: never). */
  lastActivity?: () => number | null;
  clock: Clock;
  log: Logger;
  fetch?: HealthFetch;
  intervalMs?: number;
  timeoutMs?: number;
  /** Called when the verdict turns (withdrawn <-> back). */
  onVerdict(v: HealthVerdict): void;
}

/** Probes one serve on the clock's cadence and keeps its latest KV read. */
export class ServeWatch {
  private readonly o: ServeWatchOptions;
  private readonly fetchFn: HealthFetch;
  private readonly gate: HealthGate;
  private readonly pools = new Map<string, number | null>();
  private timer: unknown = null;
  private running = false;
  private busy = false;
  private again = false;
  private latestKv: KvLoad | null = null;

  constructor(o: ServeWatchOptions) {
    this.o = o;
    this.fetchFn = o.fetch ?? ((url, init) => fetch(url, init));
    // Alive when our own generations on it moved within the last probe window (a busy serve's
    // /health and /get_load can both stall on a loaded box while it streams to us), else when
    // its scheduler answers /get_load.
    const window = (o.intervalMs ?? HEALTH_INTERVAL_MS) + (o.timeoutMs ?? HEALTH_TIMEOUT_MS);
    const streaming = () => {
      const at = o.lastActivity?.() ?? null;
      return at !== null && o.clock.now() - at <= window;
    };
    this.gate = new HealthGate(o.clock, () => schedulerAlive(o.url, this.fetchFn), streaming);
  }

  get verdict(): HealthVerdict {
    return this.gate.verdict;
  }

  get url(): string {
    return this.o.url;
  }

  get kv(): KvLoad | null {
    return this.latestKv;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) this.o.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Probe now (a request just failed to reach the serve): withdrawal should not wait for the next tick. */
  poke(): void {
    if (!this.running) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    if (this.timer !== null) this.o.clock.clearTimeout(this.timer);
    this.timer = null;
    void this.tick();
  }

  /** One probe, awaited (tests drive it with a manual clock). */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const was = this.gate.verdict.withdrawn;
      const p = await probeHealth(this.o.url, this.fetchFn, this.o.timeoutMs ?? HEALTH_TIMEOUT_MS);
      if (!this.running) return;
      const down = await this.gate.update(p);
      if (p.state === 'ok') this.latestKv = await readKv(this.o.url, this.fetchFn, this.pools);
      else this.latestKv = null;
      if (down !== was) {
        const v = this.gate.verdict;
        if (down) this.o.log.warn(`serve ${this.o.url} unhealthy (${v.cause ?? 'unknown'}): withdrawing this engine's legs`);
        else this.o.log.info(`serve ${this.o.url} healthy again (${OK_STREAK} good probes): its legs return`);
        this.o.onVerdict(v);
      }
    } finally {
      this.busy = false;
      if (this.running) {
        if (this.again) {
          this.again = false;
          this.timer = null;
          void this.tick();
        } else this.schedule();
      }
    }
  }

  private schedule(): void {
    if (this.timer !== null) this.o.clock.clearTimeout(this.timer);
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = null;
      void this.tick();
    }, this.o.intervalMs ?? HEALTH_INTERVAL_MS);
  }
}
