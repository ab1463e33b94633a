import { describe, expect, it } from 'vitest';
import { histogramQuantile, metricsPoint } from '../../../electron/engine/serve/sglang-metrics.ts';
import { StallDetector } from '../../../electron/engine/serve/stall-detector.ts';
import { parsePrometheusText } from '../../../electron/engine/metrics/prom-parse.ts';

const body = (gen: number, running = 2) => `# HELP sglang:num_running_reqs The number of running requests.
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="Qwen3.6"} ${running}
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="Qwen3.6"} 1
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="Qwen3.6"} 0.25
# TYPE sglang:cache_hit_rate gauge
sglang:cache_hit_rate{model_name="Qwen3.6"} 0.5
# TYPE sglang:gen_throughput gauge
sglang:gen_throughput{model_name="Qwen3.6"} 99
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="Qwen3.6"} ${gen}
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="Qwen3.6"} 5000
# TYPE sglang:time_to_first_token_seconds histogram
sglang:time_to_first_token_seconds_bucket{le="0.1",model_name="Qwen3.6"} 50
sglang:time_to_first_token_seconds_bucket{le="1.0",model_name="Qwen3.6"} 90
sglang:time_to_first_token_seconds_bucket{le="10.0",model_name="Qwen3.6"} 100
sglang:time_to_first_token_seconds_bucket{le="+Inf",model_name="Qwen3.6"} 100
sglang:time_to_first_token_seconds_sum{model_name="Qwen3.6"} 40
sglang:time_to_first_token_seconds_count{model_name="Qwen3.6"} 100
`;

describe('sglang /metrics', () => {
  it('reduces a scrape to the panel point', () => {
    const p = metricsPoint(body(1000), 10_000, null);
    expect(p).toMatchObject({ runningReqs: 2, queuedReqs: 1, tokenUsage: 0.25, cacheHitRate: 0.5, generationTokensTotal: 1000, promptTokensTotal: 5000, genTokensPerS: 99 });
    expect(p.ttftP50S).toBeCloseTo(0.1, 6);
    // rank 99 of 100 sits 9/10 of the way through the (1, 10] bucket.
    expect(p.ttftP99S).toBeCloseTo(1 + 9 * 0.9, 6);
    expect(p.itlP99S).toBeNull();
    const next = metricsPoint(body(1600), 12_000, p);
    expect(next.genTokensPerS).toBeCloseTo(300, 6);
  });

  it('gives no quantile without observations and survives a bad body', () => {
    expect(
      histogramQuantile(
        parsePrometheusText('x_bucket{le="+Inf"} 0\n').flatMap((f) => f.samples),
        'x',
        0.5,
      ),
    ).toBeNull();
    expect(metricsPoint('not { prometheus', 1, null).runningReqs).toBeNull();
  });

  it('calls an engine stalled only when requests run and tokens stay flat long enough', () => {
    const d = new StallDetector(300_000);
    const at = (t: number, gen: number, running: number) => metricsPoint(body(gen, running), t, null);
    expect(d.observe(at(0, 100, 2))).toBe(false);
    expect(d.observe(at(200_000, 100, 2))).toBe(false);
    expect(d.observe(at(299_999, 100, 2))).toBe(false);
    expect(d.observe(at(300_000, 100, 2))).toBe(true);
    expect(d.observe(at(310_000, 150, 2))).toBe(false);
    // idle with a flat counter is not a stall
    expect(d.observe(at(900_000, 150, 0))).toBe(false);
    expect(d.observe(at(1_300_000, 150, 0))).toBe(false);
  });
});
