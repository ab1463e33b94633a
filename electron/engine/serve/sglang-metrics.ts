import type { EngineMetricsPoint } from '../../../shared/serve.ts';
import type { Sample } from '../metrics/exposition.ts';
import { parsePrometheusText } from '../metrics/prom-parse.ts';

/** Flattened samples of a lenient read: a body the strict parser rejects yields no point rather than a crash. */
function samplesOf(text: string): Sample[] {
  try {
    return parsePrometheusText(text).flatMap((f) => f.samples);
  } catch {
    return [];
  }
}

function labelOf(s: Sample, name: string): string | undefined {
  return s.labels.find(([n]) => n === name)?.[1];
}

/** Sum over label sets (sglang labels per tp rank / model); null when the family is absent. */
function sumOf(samples: Sample[], name: string): number | null {
  let found = false;
  let total = 0;
  for (const s of samples)
    if (s.name === name) {
      found = true;
      total += s.value;
    }
  return found ? total : null;
}

/** Gauges that every rank repeats: take the largest rather than adding them up. */
function maxOf(samples: Sample[], name: string): number | null {
  let best: number | null = null;
  for (const s of samples) if (s.name === name && (best === null || s.value > best)) best = s.value;
  return best;
}

/**
 * A quantile from a cumulative histogram (`_bucket{le=...}`), interpolated linearly within the
 * bucket as Prometheus' histogram_quantile does. Null when there are no observations.
 */
export function histogramQuantile(samples: Sample[], family: string, q: number): number | null {
  const byLe = new Map<number, number>();
  for (const s of samples) {
    const leText = s.name === `${family}_bucket` ? labelOf(s, 'le') : undefined;
    if (leText === undefined) continue;
    const le = leText === '+Inf' ? Infinity : Number(leText);
    byLe.set(le, (byLe.get(le) ?? 0) + s.value);
  }
  const buckets = [...byLe.entries()].sort((a, b) => a[0] - b[0]);
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const [le, count] of buckets) {
    if (count >= rank) {
      if (!Number.isFinite(le)) return prevLe;
      const inBucket = count - prevCount;
      return inBucket <= 0 ? le : prevLe + ((le - prevLe) * (rank - prevCount)) / inBucket;
    }
    prevLe = le;
    prevCount = count;
  }
  return prevLe;
}

function firstPresent(...values: Array<number | null>): number | null {
  for (const v of values) if (v !== null) return v;
  return null;
}

/**
 * Reduces one /metrics body to a point. Throughput comes from the generation counter against
 * the previous point when there is one (sglang's own gauge only covers its last log interval).
 */
export function metricsPoint(text: string, at: number, previous: EngineMetricsPoint | null): EngineMetricsPoint {
  const s = samplesOf(text);
  const gen = sumOf(s, 'sglang:generation_tokens_total');
  let rate: number | null = null;
  if (previous && previous.generationTokensTotal !== null && gen !== null && at > previous.at && gen >= previous.generationTokensTotal) {
    rate = ((gen - previous.generationTokensTotal) * 1000) / (at - previous.at);
  }
  const itl = s.some((x) => x.name === 'sglang:inter_token_latency_seconds_bucket') ? 'sglang:inter_token_latency_seconds' : 'sglang:time_per_output_token_seconds';
  return {
    at,
    runningReqs: sumOf(s, 'sglang:num_running_reqs'),
    queuedReqs: sumOf(s, 'sglang:num_queue_reqs'),
    tokenUsage: maxOf(s, 'sglang:token_usage'),
    genTokensPerS: firstPresent(rate, sumOf(s, 'sglang:gen_throughput')),
    cacheHitRate: maxOf(s, 'sglang:cache_hit_rate'),
    generationTokensTotal: gen,
    promptTokensTotal: sumOf(s, 'sglang:prompt_tokens_total'),
    ttftP50S: histogramQuantile(s, 'sglang:time_to_first_token_seconds', 0.5),
    ttftP99S: histogramQuantile(s, 'sglang:time_to_first_token_seconds', 0.99),
    itlP50S: histogramQuantile(s, itl, 0.5),
    itlP99S: histogramQuantile(s, itl, 0.99),
  };
}
