// TEST DOUBLE (fake sglang): /metrics in sglang's Prometheus text (prefix `sglang:`, label
// model_name), with the gauge, counter and histogram families SGLANG.md A5 lists.
import type { FakeEngine } from './engine.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60, 120, 240];

function histogram(name: string, help: string, label: string, values: readonly number[]): string {
  const lines = [`# HELP sglang:${name} ${help}`, `# TYPE sglang:${name} histogram`];
  for (const b of BUCKETS) lines.push(`sglang:${name}_bucket{${label},le="${b}"} ${values.filter((v) => v <= b).length}.0`);
  lines.push(`sglang:${name}_bucket{${label},le="+Inf"} ${values.length}.0`);
  lines.push(`sglang:${name}_sum{${label}} ${values.reduce((a, b) => a + b, 0)}`);
  lines.push(`sglang:${name}_count{${label}} ${values.length}.0`);
  return lines.join('\n');
}

function one(name: string, type: 'gauge' | 'counter', help: string, label: string, value: number): string {
  const v = Number.isInteger(value) ? `${value}.0` : String(value);
  return `# HELP sglang:${name} ${help}\n# TYPE sglang:${name} ${type}\nsglang:${name}{${label}} ${v}`;
}

export function metricsText(engine: FakeEngine, modelName: string, maxTotalTokens: number, usedTokens: number): string {
  const m = engine.metrics;
  const label = `model_name="${modelName}",engine_type="unified",tp_rank="0",pp_rank="0"`;
  return (
    [
      one('num_running_reqs', 'gauge', 'The number of running requests.', label, m.running),
      one('num_queue_reqs', 'gauge', 'The number of requests in the waiting queue.', label, m.queued),
      one('num_used_tokens', 'gauge', 'The number of used tokens.', label, usedTokens),
      one('token_usage', 'gauge', 'The token usage.', label, Math.min(1, usedTokens / maxTotalTokens)),
      one('gen_throughput', 'gauge', 'The generation throughput (token/s).', label, m.lastGenThroughput),
      one('cache_hit_rate', 'gauge', 'The prefix cache hit rate.', label, engine.cacheHitRate),
      one('prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', label, m.promptTokensTotal),
      one('generation_tokens_total', 'counter', 'Number of generation tokens processed.', label, m.generationTokensTotal),
      one('cached_tokens_total', 'counter', 'Number of cached prompt tokens.', `${label},cache_source="device"`, m.cachedTokensTotal),
      one('num_requests_total', 'counter', 'Number of requests processed.', label, m.requestsTotal),
      one('num_aborted_requests_total', 'counter', 'Number of requests aborted.', label, m.abortedTotal),
      histogram('time_to_first_token_seconds', 'Histogram of time to first token in seconds.', label, m.ttft),
      histogram('inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', label, m.itl),
      histogram('e2e_request_latency_seconds', 'Histogram of End-to-end request latency in seconds', label, m.e2e),
    ].join('\n') + '\n'
  );
}
