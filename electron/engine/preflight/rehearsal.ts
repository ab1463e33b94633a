// "Rehearse qualification": before the rig goes live, send the local serve what the gateway's probe
// wave looks like (PROTOCOL 6: every declared slot at once, prompts of about 13k tokens) and measure
// TTFT and TPOT p99 against the gates. The bare serve is measured: the miner adds its own overhead
// on top, so the forecast keeps a margin (operators measured up to 2.3x with a slow miner).
import { AppFailure } from '../../../shared/errors.ts';
import type { RehearsalResult } from '../../../shared/preflight.ts';
import { withUnit } from '../../../shared/figure-units.ts';
import type { ServeSnapshot } from '../../../shared/serve.ts';
import type { Logger } from '../lib/logger.ts';
import { percentile } from '../miner/stats.ts';

export interface RehearsalOptions {
  serveUrls: string[];
  gates: { ttftP99Ms: number; tpotP99Ms: number };
  concurrent?: number;
  /** Words per prompt: common English words are about one token each with the Qwen tokenizer. */
  promptWords?: number;
  /** Output tokens per request: enough for a stable TPOT, far fewer than a real probe's 4096. */
  maxTokens?: number;
  timeoutMs?: number;
  fetchFn?: typeof fetch;
  now?: () => number;
  signal?: AbortSignal;
}

export const PROBE_CONCURRENT = 24;
export const PROBE_PROMPT_WORDS = 13_000;
const WORDS =
  'time person year way day thing man world life hand part child eye woman place work week case point government company number group problem fact be have do say get make go know take see come think look want give use find tell ask seem feel try leave call good new first last long great little own other old right big high different small large next early young important few public bad same able'.split(
    ' ',
  );
/** Above this share of a gate the rehearsal passes but says the margin is thin. */
const RISK_SHARE = 0.5;

/** A prompt no other request shares a prefix with: the first line is unique, so the prefix cache cannot help. */
export function rehearsalPrompt(seed: number, words: number): string {
  let x = (seed * 2654435761) >>> 0 || 1;
  const out: string[] = [`Rehearsal ${seed}-${Date.now()}: summarise the following text.`];
  for (let i = 0; i < words; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out.push(WORDS[x % WORDS.length]!);
  }
  return out.join(' ');
}

interface OneResult {
  ttftMs: number | null;
  tpotMs: number | null;
  promptTokens: number | null;
  error: string | null;
}

/** One streamed /generate: TTFT at the first event carrying tokens, TPOT over the tokens after it. */
async function runOne(url: string, prompt: string, maxTokens: number, o: Required<Pick<RehearsalOptions, 'fetchFn' | 'now' | 'timeoutMs'>>, signal: AbortSignal): Promise<OneResult> {
  const t0 = o.now();
  let first: number | null = null;
  let last = t0;
  let tokens = 0;
  let promptTokens: number | null = null;
  try {
    const res = await o.fetchFn(new URL('/generate', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: prompt, stream: true, sampling_params: { max_new_tokens: maxTokens, temperature: 0, ignore_eos: true } }),
      signal: AbortSignal.any([signal, AbortSignal.timeout(o.timeoutMs)]),
    });
    if (!res.ok || !res.body) return { ttftMs: null, tpotMs: null, promptTokens: null, error: `the serve answered HTTP ${res.status}: ${(await res.text().catch(() => '')).slice(0, 200)}` };
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]' || data === '') continue;
        let ev: { meta_info?: { completion_tokens?: unknown; prompt_tokens?: unknown } };
        try {
          ev = JSON.parse(data) as typeof ev;
        } catch {
          continue;
        }
        const done = typeof ev.meta_info?.completion_tokens === 'number' ? ev.meta_info.completion_tokens : tokens;
        if (typeof ev.meta_info?.prompt_tokens === 'number') promptTokens = ev.meta_info.prompt_tokens;
        if (done > 0 && first === null) first = o.now();
        if (done > tokens) {
          tokens = done;
          last = o.now();
        }
      }
      // A serve that streams one endless line must not grow this buffer without bound.
      if (buf.length > 1 << 20) return { ttftMs: null, tpotMs: null, promptTokens, error: 'the serve sent an event larger than 1 MiB' };
    }
  } catch (e) {
    const msg = e instanceof Error ? (e.name === 'TimeoutError' ? `no answer within ${Math.round(o.timeoutMs / 1000)} s` : e.message) : String(e);
    return { ttftMs: first === null ? null : first - t0, tpotMs: null, promptTokens, error: msg };
  }
  if (first === null) return { ttftMs: null, tpotMs: null, promptTokens, error: 'the serve returned no tokens' };
  return { ttftMs: first - t0, tpotMs: tokens > 1 ? (last - first) / (tokens - 1) : null, promptTokens, error: null };
}

// One unit and one rounding per figure, the Mine cards' own (shared/figure-units.ts): "2308 ms" beside "2.3 s",
// or "0.7 s" in the forecast under "0.71 s" on the same card, read as two numbers.
const UNIT = { TTFT: withUnit.ttft, TPOT: withUnit.tpot } as const;

export function forecastText(r: Pick<RehearsalResult, 'ttftP99Ms' | 'tpotP99Ms' | 'gates' | 'failed' | 'completed' | 'firstError'>): { verdict: 'pass' | 'fail'; text: string } {
  if (r.completed === 0) return { verdict: 'fail', text: `No request finished${r.firstError ? `: ${r.firstError}` : ''}. The probe wave would fail the acceptance gate.` };
  const acceptance = r.completed / (r.completed + r.failed);
  if (acceptance < 0.99) return { verdict: 'fail', text: `${r.failed} of ${r.completed + r.failed} requests failed (${r.firstError ?? 'no cause given'}): the acceptance gate needs 99 %.` };
  const parts: string[] = [];
  let verdict: 'pass' | 'fail' = 'pass';
  let thin = false;
  for (const [name, v, gate] of [
    ['TTFT', r.ttftP99Ms, r.gates.ttftP99Ms],
    ['TPOT', r.tpotP99Ms, r.gates.tpotP99Ms],
  ] as const) {
    if (v === null) continue;
    if (v > gate) {
      verdict = 'fail';
      parts.push(`${name} p99 ${UNIT[name](v)} is over the ${UNIT[name](gate)} gate`);
    } else {
      if (v > gate * RISK_SHARE) thin = true;
      parts.push(`${name} p99 ${UNIT[name](v)} of ${UNIT[name](gate)} (${Math.round((v / gate) * 100)} %)`);
    }
  }
  const tail =
    verdict === 'fail'
      ? ' The probes would fail this worker: fewer concurrent requests (Settings > In-flight limit) or more GPUs.'
      : thin
        ? ' It passes, but the miner adds its own latency on top of the bare serve: the margin is thin.'
        : " It passes with room for the miner's own overhead.";
  return { verdict, text: `${parts.join('; ')}.${tail}` };
}

export async function rehearseQualification(opts: RehearsalOptions): Promise<RehearsalResult> {
  if (opts.serveUrls.length === 0) throw new Error('no serve to rehearse against');
  const o = { fetchFn: opts.fetchFn ?? fetch, now: opts.now ?? (() => performance.now()), timeoutMs: opts.timeoutMs ?? 300_000 };
  const concurrent = opts.concurrent ?? PROBE_CONCURRENT;
  const words = opts.promptWords ?? PROBE_PROMPT_WORDS;
  const maxTokens = opts.maxTokens ?? 256;
  const signal = opts.signal ?? new AbortController().signal;
  const started = o.now();
  const at = Date.now();
  // Spread over the engines as the gateway's legs would: round robin.
  const results = await Promise.all(Array.from({ length: concurrent }, (_, i) => runOne(opts.serveUrls[i % opts.serveUrls.length]!, rehearsalPrompt(i + 1, words), maxTokens, o, signal)));
  const okOnes = results.filter((r) => r.error === null);
  const sorted = (xs: Array<number | null>) => xs.filter((x): x is number => x !== null).sort((a, b) => a - b);
  const prompts = sorted(results.map((r) => r.promptTokens));
  const base = {
    at,
    serveUrls: opts.serveUrls,
    concurrent,
    promptTokens: prompts.length > 0 ? Math.round(prompts.reduce((a, b) => a + b, 0) / prompts.length) : words,
    maxTokens,
    completed: okOnes.length,
    failed: results.length - okOnes.length,
    firstError: results.find((r) => r.error !== null)?.error ?? null,
    ttftP99Ms: percentile(sorted(okOnes.map((r) => r.ttftMs)), 99),
    tpotP99Ms: percentile(sorted(okOnes.map((r) => r.tpotMs)), 99),
    gates: opts.gates,
  };
  const f = forecastText(base);
  return { ...base, verdict: f.verdict, forecast: f.text, durationMs: o.now() - started };
}

/**
 * Where to rehearse: the serve the user runs (external), or the engines the panel runs once they
 * serve. A managed serve that is not up has nothing to measure yet.
 */
export function rehearsalTargets(
  s: { runtime: string | null; externalServeUrls: string[] },
  serve: { engines: Array<{ url: string; status: { state: string } }> } | null,
): string[] | { problem: string } {
  if (s.runtime === 'external') return s.externalServeUrls.length > 0 ? s.externalServeUrls : { problem: 'Add the URL of your sglang serve first (Setup > Serve runtime).' };
  const up = (serve?.engines ?? []).filter((e) => e.status.state === 'ready' || e.status.state === 'degraded').map((e) => e.url);
  if (up.length === 0)
    return { problem: 'The panel runs this serve only while mining: start mining, wait for the engines to show "ready", then rehearse (the probes start about a minute after every leg is admitted).' };
  return up;
}

export interface RehearsalRunnerDeps {
  mining: () => { runtime: string | null; externalServeUrls: string[] };
  serve: () => ServeSnapshot | null;
  gates: RehearsalOptions['gates'];
  log: Logger;
  /** Tests: a smaller wave. */
  wave?: Pick<RehearsalOptions, 'concurrent' | 'promptWords' | 'maxTokens' | 'timeoutMs' | 'fetchFn'>;
}

/** The `mining.rehearse` action: one wave at a time (two would measure each other), errors as sentences. */
export class RehearsalRunner {
  private running = false;
  private readonly d: RehearsalRunnerDeps;

  constructor(d: RehearsalRunnerDeps) {
    this.d = d;
  }

  async run(): Promise<RehearsalResult> {
    const targets = rehearsalTargets(this.d.mining(), this.d.serve());
    if ('problem' in targets) throw new AppFailure('unavailable', targets.problem);
    return this.runOn(targets);
  }

  /** The wave against these serve URLs (Start's rehearsal, before the miner dials). */
  async runOn(targets: string[]): Promise<RehearsalResult> {
    if (this.running) throw new AppFailure('conflict', 'A rehearsal is already running: its result shows when it ends (up to a few minutes).');
    this.running = true;
    try {
      const r = await rehearseQualification({ ...this.d.wave, serveUrls: targets, gates: this.d.gates });
      this.d.log.info(`${r.completed}/${r.concurrent} requests finished, forecast ${r.verdict}: ${r.forecast}`);
      return r;
    } finally {
      this.running = false;
    }
  }
}
