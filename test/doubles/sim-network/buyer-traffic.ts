// TEST DOUBLE (simulated network): paying buyers. Every few seconds one short streamed chat request
// through the gateway double to each ACTIVE worker, and a per-hotkey tally of what came back (what
// the master validator scores an epoch from): billed successes, failures, tokens, audit verdicts, TTFT.
import type { GatewayDouble, ServeResult, WorkerView } from '../gateway/gateway-double.ts';
import type { WorkerTally } from './epoch-scorer.ts';

export interface BuyerTrafficOptions {
  gateway: GatewayDouble;
  /** A worker's hotkey (by its name or its miner key); workers without one are served but not tallied. */
  hotkeyOf: (worker: Pick<WorkerView, 'workerName' | 'minerKey'>) => string | null;
  everyMs: number;
  maxTokens: number;
  /** Requests a worker may have outstanding: on a busy 2-core box buyers queue, they do not pile up. */
  maxInflightPerWorker?: number;
}

interface Acc {
  ok: number;
  failed: number;
  promptTokens: number;
  completionTokens: number;
  verdicts: { pass: number; cheat: number; unproven: number };
  ttfts: number[];
}

const QUESTIONS = [
  'What is verified inference?',
  'Name three prime numbers.',
  'Summarise the water cycle in one sentence.',
  'Why do validators set weights?',
  'Translate "good morning" into French.',
  'What does a GPU do for a language model?',
];

function emptyAcc(): Acc {
  return { ok: 0, failed: 0, promptTokens: 0, completionTokens: 0, verdicts: { pass: 0, cheat: 0, unproven: 0 }, ttfts: [] };
}

export function p99(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}

export class BuyerTraffic {
  private readonly o: BuyerTrafficOptions;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly inflight = new Map<string, Set<Promise<unknown>>>();
  private tallies = new Map<string, Acc>();
  private seq = 0;
  /** Since start, across epochs: for the story's log and the tests. */
  readonly totals = { sent: 0, ok: 0, failed: 0 };

  constructor(o: BuyerTrafficOptions) {
    this.o = o;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.round(), this.o.everyMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // The gateway's stop resolves nothing pending: do not wait on requests forever.
    const all = [...this.inflight.values()].flatMap((s) => [...s]);
    await Promise.race([Promise.allSettled(all), new Promise((r) => setTimeout(r, 2_000).unref())]);
  }

  /** The tallies of the epoch that just ended, and a fresh start for the next one. */
  takeTallies(): WorkerTally[] {
    const out: WorkerTally[] = [];
    for (const [hotkey, a] of this.tallies) {
      out.push({ hotkey, ok: a.ok, failed: a.failed, promptTokens: a.promptTokens, completionTokens: a.completionTokens, verdicts: { ...a.verdicts }, ttftP99Ms: Math.round(p99(a.ttfts)) });
    }
    this.tallies = new Map();
    return out;
  }

  /** Billed successes so far in the current epoch for a hotkey. */
  okSoFar(hotkey: string): number {
    return this.tallies.get(hotkey)?.ok ?? 0;
  }

  private round(): void {
    const cap = this.o.maxInflightPerWorker ?? 3;
    for (const w of this.o.gateway.view()) {
      if (w.state !== 'active') continue;
      const hotkey = this.o.hotkeyOf(w);
      const mine = this.inflight.get(w.workerId) ?? new Set<Promise<unknown>>();
      this.inflight.set(w.workerId, mine);
      if (mine.size >= cap) continue;
      const n = ++this.seq;
      let done: Promise<ServeResult>;
      try {
        done = this.o.gateway.serve(
          { messages: [{ role: 'user', content: QUESTIONS[n % QUESTIONS.length]! }], max_tokens: this.o.maxTokens, engy_request_id: `buyer-${n}` },
          { stream: true, workerId: w.workerId },
        ).done;
      } catch {
        // No live leg this instant (a re-dial): the buyer tries again next round.
        continue;
      }
      this.totals.sent += 1;
      const p = done.then((r) => (hotkey ? this.record(hotkey, r) : this.count(r)));
      mine.add(p);
      void p.finally(() => mine.delete(p));
    }
  }

  private count(r: ServeResult): boolean {
    const ok = !r.cancelled && r.response !== null && !r.response.error && r.response.commitment !== null;
    if (ok) this.totals.ok += 1;
    else if (!r.cancelled) this.totals.failed += 1;
    return ok;
  }

  private record(hotkey: string, r: ServeResult): void {
    const a = this.tallies.get(hotkey) ?? emptyAcc();
    this.tallies.set(hotkey, a);
    // A cancel is the buyer hanging up (HTTP 499): it leaves the acceptance denominator.
    if (r.cancelled) return;
    if (!this.count(r)) {
      a.failed += 1;
      return;
    }
    a.ok += 1;
    const out = r.response?.output;
    if (out && 'usage' in out) {
      a.promptTokens += out.usage.prompt_tokens;
      a.completionTokens += out.usage.completion_tokens;
    }
    a.ttfts.push(r.ttftMs);
    if (r.audit) a.verdicts[r.audit.verdict] += 1;
  }
}
