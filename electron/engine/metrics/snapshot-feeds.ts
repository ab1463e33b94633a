import type { MinerRequestRecord, MinerSnapshot } from '../../../shared/miner.ts';
import type { EngineSnapshot, ServeSnapshot } from '../../../shared/serve.ts';
import type { SubmissionRecord, ValidatorSnapshot } from '../../../shared/validator.ts';
import type { EngyMetrics } from './engy-metrics.ts';
import { fleetPhase } from '../../../shared/miner-fleet.ts';

// Adapters from the services' published snapshots to EngyMetrics, so the composition root only
// subscribes: `mining.onDidChange(() => feeds.miners(mining.minerSnapshots()))`. Counters must not count a request twice
// when the same `recent` list arrives in several snapshots, hence the bounded "seen" sets.

const SEEN_CAP = 4096;

/** Remembers the last SEEN_CAP keys: enough to cover every list a snapshot carries. */
class SeenSet {
  private readonly keys = new Set<string>();
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > SEEN_CAP) this.keys.delete(this.keys.values().next().value as string);
    return true;
  }
}

export function recordRequest(metrics: EngyMetrics, r: MinerRequestRecord): void {
  metrics.recordRequest({
    outcome: r.outcome,
    ...(r.ttftMs !== null ? { ttftSeconds: r.ttftMs / 1000 } : {}),
    ...(r.tpotMs !== null ? { tpotSeconds: r.tpotMs / 1000 } : {}),
    promptTokens: r.promptTokens,
    completionTokens: r.completionTokens,
    cachedTokens: r.cachedTokens,
  });
  if (r.proofMs !== null) metrics.recordProofBuild(r.proofMs / 1000);
}

/** The `engine` label: GPUs it runs on (`gpu0`, `gpu0-1` for TP2), or `engine<N>` for an external serve. Use it for setSglangScrapes too. */
export function engineLabel(e: Pick<EngineSnapshot, 'index' | 'gpuIndices'>): string {
  return e.gpuIndices.length > 0 ? `gpu${e.gpuIndices.join('-')}` : `engine${e.index}`;
}

export class SnapshotFeeds {
  private readonly metrics: EngyMetrics;
  private readonly requests = new SeenSet();
  private readonly submissions = new SeenSet();
  // The first snapshot of each kind may carry history from before this process (loaded from the
  // store): it primes the seen sets without counting, so a restart does not replay old totals.
  private readonly minersPrimed = new Set<number>();
  private validatorPrimed = false;

  constructor(metrics: EngyMetrics) {
    this.metrics = metrics;
  }

  /**
   * Every worker of the run (one per engine on a multi-engine rig; [] once mining stops). The metrics have no
   * worker label (the dashboards must not change): the state is the least healthy worker's, legs and in-flight
   * are summed, and every worker's requests are counted once.
   */
  miners(all: readonly MinerSnapshot[]): void {
    const legs = all.flatMap((s) => s.legs);
    this.metrics.observeMiner({
      state: fleetPhase(all),
      legsConnected: legs.filter((l) => l.status === 'open' || l.status === 'admitted').length,
      legsAdmitted: legs.filter((l) => l.status === 'admitted').length,
      inFlight: all.reduce((n, s) => n + s.stats.inflight, 0),
      withdrawn: all.flatMap((s, i) => (s.serveHealth?.withdrawn ? [{ worker: String(i), cause: s.serveHealth.cause ?? 'unknown' }] : [])),
    });
    if (all.length === 0) this.minersPrimed.clear(); // the next run's workers prime again
    for (const [i, s] of all.entries()) {
      // A worker's first snapshot may carry history from the store: it primes without counting.
      const primed = this.minersPrimed.has(i);
      for (const r of s.recent) if (this.requests.add(`${i}:${r.corrId}`) && primed) recordRequest(this.metrics, r);
      this.minersPrimed.add(i);
    }
  }

  /** The serve fleet; null once it stops (its engines and GPUs leave the scrape instead of freezing there). */
  serve(s: ServeSnapshot | null): void {
    if (s === null) {
      this.metrics.observeServe([]);
      this.metrics.observeGpus([]);
      this.metrics.setSglangScrapes([]);
      return;
    }
    this.metrics.observeServe(s.engines.map((e) => ({ engine: engineLabel(e), state: e.status.state, up: e.status.state === 'ready', restarts: e.status.restarts })));
    this.metrics.observeGpus(
      s.gpus.flatMap((g) => {
        const p = g.points.at(-1);
        if (!p) return [];
        return [
          {
            index: g.index,
            // The snapshot names the card, not its UUID: the index keeps series apart on one host.
            uuid: g.name,
            ...(p.utilizationPct !== null ? { utilizationRatio: p.utilizationPct / 100 } : {}),
            ...(p.memoryUsedMiB !== null ? { memoryUsedBytes: p.memoryUsedMiB * 1024 * 1024 } : {}),
            ...(p.memoryTotalMiB !== null ? { memoryTotalBytes: p.memoryTotalMiB * 1024 * 1024 } : {}),
            ...(p.temperatureC !== null ? { temperatureCelsius: p.temperatureC } : {}),
            ...(p.powerDrawW !== null ? { powerWatts: p.powerDrawW } : {}),
          },
        ];
      }),
    );
  }

  /** The engines' own /metrics bodies, labelled with the same `engine` id as engy_serve_* (gpu0, gpu0-1, engine1). */
  sglang(bodies: readonly { engine: Pick<EngineSnapshot, 'index' | 'gpuIndices'>; text: string }[]): void {
    this.metrics.setSglangScrapes(bodies.map((b) => ({ engine: engineLabel(b.engine), text: b.text })));
  }

  validator(s: ValidatorSnapshot): void {
    const last = s.applied?.block ?? null;
    const current = s.chain.block;
    this.metrics.observeValidator({ ...(last !== null ? { lastSubmitBlock: last } : {}), ...(last !== null && current !== null ? { currentBlock: current } : {}) });
    const cr = s.commitReveal;
    if (cr) {
      const next = cr.pending.reduce<(typeof cr.pending)[number] | null>((a, p) => (a === null || p.expectedRevealBlock < a.expectedRevealBlock ? p : a), null);
      this.metrics.observeCommitReveal({
        enabled: cr.path === 'unknown' ? null : cr.path === 'commit-reveal',
        pending: cr.pending.length,
        nextRevealBlock: next?.expectedRevealBlock ?? null,
        nextRevealRound: next?.revealRound ?? null,
        lastRevealLanded: cr.lastReveal?.landed ?? null,
      });
    }
    for (const sub of s.recentSubmissions) {
      if (this.submissions.add(submissionKey(sub)) && this.validatorPrimed) this.metrics.recordSubmission(submissionOutcome(sub));
    }
    this.validatorPrimed = true;
  }
}

function submissionKey(s: SubmissionRecord): string {
  return `${s.at}:${s.epochIndex}:${s.kind}:${s.extrinsicHash ?? ''}`;
}

/** `accepted`, or the chain's error name (SettingWeightsTooFast, ...), or `failed`. */
export function submissionOutcome(s: SubmissionRecord): string {
  if (s.ok) return 'accepted';
  return s.errorCode ?? 'failed';
}
