// Self-audit: for a small, rate-limited sample of served requests, prefill prompt + output on
// the serve with hidden states, rebuild the activations and verify the proof we sent, scoring
// it as the auditor does (mean top-k exponent mismatch / k). Off the hot path: one at a time.
import type { Agent } from 'node:http';
import type { SelfAuditSummary } from '../../../shared/miner.ts';
import { float64ToBf16 } from '../proof/bf16.ts';
import type { Logger } from '../lib/logger.ts';
import type { AuditSample } from './request-pipeline.ts';
import { TOPK, TOPLOC_V, type ProofPort } from './proof-port.ts';
import { postGenerate } from './serve-http.ts';
import { AUDIT_RID_PREFIX } from '../serve/trim-module.ts';

/** The auditor's per-chunk cut as a score: toploc_v mismatches of k, from the model spec (resources/models.json). */
export function cheatScoreOf(spec: { toploc: { k: number; v: number } }): number {
  return spec.toploc.v / spec.toploc.k;
}
/** The same cut for the proof port's constants (40 / 128), used when no spec is at hand. */
export const CHEAT_SCORE = TOPLOC_V / TOPK;
/** Warn before the cut: honest FP8 serving scored about 0.18-0.23 at P99, so drift above 80% of it is news. */
const WARN_SHARE = 0.8;

export interface SelfAuditOptions {
  proof: ProofPort;
  agent: Agent;
  log: Logger;
  /** Share of served requests audited (0..1). */
  sampleRate: number;
  minIntervalMs: number;
  /** Larger requests are skipped: the audit parses the prefill body on this thread. */
  maxRows: number;
  /** All serve URLs: the audit prefers one that did not serve the request (its prefix cache would hide the rows). */
  serveUrls: readonly string[];
  /** The cheat cut as a score (cheatScoreOf the model spec); the one threshold every page shows. */
  threshold?: number;
  /**
   * True while the serve has no request of ours in flight. With a single serve, an audit waits for
   * this, flushes sglang's prefix cache (POST /flush_cache, refused with 400 while any request runs)
   * and re-runs the request on the now-empty cache; a busy serve skips it, counted as such.
   */
  idle?: () => boolean;
  /** POST <serve>/flush_cache; true when the serve flushed (tests inject a double). */
  flush?: (serveUrl: string) => Promise<boolean>;
  onResult?(requestId: string, score: number | null, chunks: number, error: string | null): void;
  onChange?(): void;
  random?: () => number;
  now?: () => number;
}

export class SelfAuditor {
  private busy = false;
  private lastAt = 0;
  private readonly scores: number[] = [];
  private failedChunks = 0;
  private audited = 0;
  private skipped = 0;
  private failures = 0;
  private flushes = 0;
  private readonly skipReasons = new Map<string, number>();
  /** A single-serve sample waiting for the serve to go idle (the newest one wins). */
  private pending: AuditSample | null = null;
  private readonly o: SelfAuditOptions;

  constructor(o: SelfAuditOptions) {
    this.o = o;
  }

  private skip(reason: string): void {
    this.skipped += 1;
    this.skipReasons.set(reason, (this.skipReasons.get(reason) ?? 0) + 1);
  }

  /** True when the only serve to re-run on is the one that served (and cached) the request. */
  private needsFlush(sample: AuditSample): boolean {
    return !this.o.serveUrls.some((u) => u !== sample.serveUrl);
  }

  offer(sample: AuditSample): void {
    const now = (this.o.now ?? Date.now)();
    const random = this.o.random ?? Math.random;
    if (this.busy || now - this.lastAt < this.o.minIntervalMs || random() >= this.o.sampleRate) return;
    const t = sample.commitment.toploc;
    if (t.prompt_ids.length + t.n_tokens > this.o.maxRows) {
      this.skip('too large to re-run on this thread');
      return;
    }
    this.lastAt = now;
    if (this.needsFlush(sample) && this.o.idle && !this.o.idle()) {
      if (this.pending) this.skip('the serve never went idle before a newer sample replaced it');
      this.pending = sample;
      this.o.onChange?.();
      return;
    }
    this.start(sample);
  }

  /** Called when the miner's in-flight count changes: a waiting single-serve sample runs once the serve is idle. */
  poke(): void {
    if (!this.pending || this.busy || (this.o.idle && !this.o.idle())) return;
    const sample = this.pending;
    this.pending = null;
    this.start(sample);
  }

  private start(sample: AuditSample): void {
    this.busy = true;
    void this.run(sample).finally(() => {
      this.busy = false;
      this.o.onChange?.();
    });
  }

  summary(): SelfAuditSummary {
    const recent = this.scores.slice(-50);
    const mean = recent.length > 0 ? recent.reduce((a, b) => a + b, 0) / recent.length : null;
    const max = recent.length > 0 ? Math.max(...recent) : null;
    const last = this.scores[this.scores.length - 1] ?? null;
    const cut = this.o.threshold ?? CHEAT_SCORE;
    let warning: string | null = null;
    if (this.failedChunks > 0) warning = `self-audit: ${this.failedChunks} proof chunk(s) above the auditor's ${TOPLOC_V} of ${TOPK} mismatch cut: the serve's numerics differ from the checkpoint's`;
    else if (mean !== null && mean > cut * WARN_SHARE) warning = `self-audit: proof mismatch ${mean.toFixed(3)} drifting toward the auditor's ${cut.toFixed(3)} cut`;
    return {
      audited: this.audited,
      skipped: this.skipped,
      failures: this.failures,
      lastScore: last,
      meanScore: mean,
      maxScore: max,
      threshold: cut,
      warning,
      mode: this.o.serveUrls.length > 1 ? 'other-engine' : 'flush-when-idle',
      flushes: this.flushes,
      waiting: this.pending !== null,
      skipReasons: [...this.skipReasons].map(([reason, count]) => ({ reason, count })),
    };
  }

  /** Audits one sample now, whatever the sampling says (tests and the "audit now" button). */
  async run(sample: AuditSample): Promise<number | null> {
    const t = sample.commitment.toploc;
    const ids = [...t.prompt_ids, ...sample.commitment.output_token_ids.slice(0, -1)];
    const other = this.o.serveUrls.find((u) => u !== sample.serveUrl) ?? sample.serveUrl;
    try {
      if (other === sample.serveUrl) {
        // One engine: its prefix cache holds this request. Flush it (sglang refuses while anything runs).
        const flushed = await (this.o.flush ?? flushCache)(other);
        if (!flushed) {
          this.skip('the serve was busy: sglang refused /flush_cache');
          this.o.onResult?.(sample.requestId, null, 0, 'skipped: the serve was busy, sglang refused /flush_cache (it flushes only with no request running)');
          return null;
        }
        this.flushes += 1;
      }
      const rows = await this.prefillRows(other, ids, t.prompt_ids.length - 1);
      // The serve returns rows only for positions its prefix cache did not hold: verify the proof
      // chunks whose rows all came back (chunk j covers output rows [B*j, B*(j+1))).
      const missing = t.n_tokens - rows.length;
      const first = Math.ceil(missing / t.decode_batching_size);
      const proofs = t.proofs.slice(first);
      const usable = rows.slice(first * t.decode_batching_size - missing);
      if (proofs.length === 0 || usable.length === 0) {
        // After a successful flush nothing is cached: no rows means the serve trims prefill hidden states.
        const why =
          other === sample.serveUrl
            ? `the serve returned no prefill rows after a flush: its hidden-state trim does not leave the audit's request (rid ${AUDIT_RID_PREFIX}...) untrimmed, as this panel's engy_trim does (another hook, such as the upstream miner's, or an older one)`
            : 'the serve returned no fresh rows (prefix cache, or a hidden-state trim that does not spare the audit)';
        this.skip(why);
        this.o.onResult?.(sample.requestId, null, 0, `prefill gave ${rows.length} rows for ${t.n_tokens} tokens: ${why}`);
        return null;
      }
      const v = await this.o.proof.verifyProofs(proofs, usable, t.topk, t.decode_batching_size);
      this.audited += 1;
      this.scores.push(v.score);
      this.failedChunks += v.mismatches.filter((m) => m > TOPLOC_V).length;
      if (this.scores.length > 500) this.scores.shift();
      this.o.onResult?.(sample.requestId, v.score, v.chunks, null);
      const cut = this.o.threshold ?? CHEAT_SCORE;
      if (v.score > cut * WARN_SHARE) this.o.log.warn(`self-audit ${sample.requestId}: mismatch ${v.score.toFixed(3)} (auditor cut ${cut.toFixed(3)})`);
      return v.score;
    } catch (e) {
      this.failures += 1;
      this.o.onResult?.(sample.requestId, null, 0, (e as Error).message.slice(0, 300));
      this.o.log.warn(`self-audit ${sample.requestId} failed: ${(e as Error).message}`);
      return null;
    }
  }

  /** Hidden rows of positions from..end of `ids`, from one prefill (1 new token). */
  private async prefillRows(serveUrl: string, ids: number[], from: number): Promise<Uint16Array[]> {
    const parts: Buffer[] = [];
    const body = {
      input_ids: ids,
      sampling_params: { temperature: 0.0, max_new_tokens: 1 },
      rid: `${AUDIT_RID_PREFIX}${globalThis.crypto.randomUUID().replace(/-/g, '')}`,
      return_hidden_states: true,
    };
    await postGenerate(serveUrl, body, this.o.agent, (c) => void parts.push(Buffer.from(c)), { timeoutMs: 600_000 });
    const out = JSON.parse(Buffer.concat(parts).toString('utf8')) as { meta_info?: { hidden_states?: unknown[] } } | { meta_info?: { hidden_states?: unknown[] } }[];
    const one = Array.isArray(out) ? out[0] : out;
    const block = one?.meta_info?.hidden_states?.[0];
    if (!Array.isArray(block) || block.length === 0 || !Array.isArray(block[0])) return [];
    // The block covers the positions the serve computed (after any cached prefix): align on the end.
    const rows = block as number[][];
    const want = ids.length - from;
    return rows.slice(Math.max(0, rows.length - want)).map((r) => {
      const bits = new Uint16Array(r.length);
      for (let i = 0; i < r.length; i++) bits[i] = float64ToBf16(r[i]!);
      return bits;
    });
  }
}

/** sglang's POST /flush_cache: 200 when flushed, 400 while requests run or wait. */
export async function flushCache(serveUrl: string): Promise<boolean> {
  try {
    const r = await fetch(`${serveUrl.replace(/\/$/, '')}/flush_cache`, { method: 'POST', signal: AbortSignal.timeout(10_000) });
    await r.body?.cancel();
    return r.ok;
  } catch {
    return false;
  }
}
