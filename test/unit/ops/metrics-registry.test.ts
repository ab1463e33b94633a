import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from '../../../electron/engine/metrics/registry.ts';
import { parsePrometheusText, PromParseError } from '../../../electron/engine/metrics/prom-parse.ts';
import { EngyMetrics, ENGY_METRIC_NAMES } from '../../../electron/engine/metrics/engy-metrics.ts';
import { relabelSglang } from '../../../electron/engine/metrics/sglang-relabel.ts';
import type { Family } from '../../../electron/engine/metrics/exposition.ts';

// Line grammar of the text format, checked independently of our own parser.
const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const VALUE = '(?:[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?|\\+Inf|-Inf|NaN)';
const SAMPLE_RE = new RegExp(`^(${NAME})(?:\\{(?:${LABEL})(?:,${LABEL})*\\})? ${VALUE}$`);
const HELP_RE = new RegExp(`^# HELP (${NAME}) (?:[^\\\\\\n]|\\\\[\\\\n])*$`);
const TYPE_RE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);

/** Every line is HELP, TYPE or a sample; each family declared once, HELP then TYPE, before its samples. */
function assertStrictExposition(text: string): void {
  expect(text.endsWith('\n')).toBe(true);
  const lines = text.slice(0, -1).split('\n');
  const declared = new Set<string>();
  let current = '';
  let currentType = '';
  for (const line of lines) {
    const help = HELP_RE.exec(line);
    if (help) {
      expect(declared.has(help[1]!), `family ${help[1]} declared twice`).toBe(false);
      declared.add(help[1]!);
      current = help[1]!;
      currentType = '';
      continue;
    }
    const type = TYPE_RE.exec(line);
    if (type) {
      expect(type[1]).toBe(current);
      currentType = type[2]!;
      continue;
    }
    const sample = SAMPLE_RE.exec(line);
    expect(sample, `not a valid exposition line: ${line}`).not.toBeNull();
    const name = sample![1]!;
    const suffixes = currentType === 'histogram' ? ['_bucket', '_sum', '_count'] : [''];
    expect(suffixes.map((s) => current + s), `${name} outside its family ${current}`).toContain(name);
  }
}

function family(families: Family[], name: string): Family {
  const f = families.find((x) => x.name === name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
}

describe('MetricsRegistry', () => {
  it('renders counters, gauges and histograms with HELP/TYPE and cumulative buckets', () => {
    const r = new MetricsRegistry();
    r.counter('demo_requests_total', 'Requests.', ['outcome']).inc({ outcome: 'ok' }, 3);
    r.gauge('demo_temp_celsius', 'Temp.').set({}, 61.5);
    const h = r.histogram('demo_latency_seconds', 'Latency.', ['route'], [0.1, 1, 10]);
    for (const v of [0.05, 0.5, 0.7, 5, 50]) h.observe({ route: '/g' }, v);
    const text = r.render();
    assertStrictExposition(text);
    expect(text).toContain('# TYPE demo_requests_total counter\ndemo_requests_total{outcome="ok"} 3\n');
    expect(text).toContain('demo_temp_celsius 61.5\n');
    expect(text).toContain('demo_latency_seconds_bucket{route="/g",le="0.1"} 1\n');
    expect(text).toContain('demo_latency_seconds_bucket{route="/g",le="1"} 3\n');
    expect(text).toContain('demo_latency_seconds_bucket{route="/g",le="10"} 4\n');
    expect(text).toContain('demo_latency_seconds_bucket{route="/g",le="+Inf"} 5\n');
    expect(text).toContain('demo_latency_seconds_sum{route="/g"} 56.25\n');
    expect(text).toContain('demo_latency_seconds_count{route="/g"} 5\n');
  });

  it('escapes label values and help text so the body still parses', () => {
    const r = new MetricsRegistry();
    r.gauge('demo_info', 'Line one\nback\\slash.', ['path']).set({ path: 'C:\\a "b"\nc' }, 1);
    const text = r.render();
    assertStrictExposition(text);
    expect(text).toContain('# HELP demo_info Line one\\nback\\\\slash.\n');
    expect(text).toContain('demo_info{path="C:\\\\a \\"b\\"\\nc"} 1\n');
    const parsed = parsePrometheusText(text);
    expect(parsed[0]!.help).toBe('Line one\nback\\slash.');
    expect(parsed[0]!.samples[0]!.labels).toEqual([['path', 'C:\\a "b"\nc']]);
  });

  it('refuses bad names, unknown or missing labels, falling counters and duplicate registration', () => {
    const r = new MetricsRegistry();
    expect(() => r.gauge('9bad', 'x')).toThrow(/invalid metric name/);
    expect(() => r.gauge('ok_name', 'x', ['le'])).toThrow(/invalid label/);
    const c = r.counter('c_total', 'x', ['a']);
    expect(() => c.inc({ a: '1', b: '2' })).toThrow(/no label "b"/);
    expect(() => c.inc({})).toThrow(/needs label "a"/);
    expect(() => c.inc({ a: '1' }, -1)).toThrow(/only go up/);
    expect(() => r.counter('c_total', 'again')).toThrow(/twice/);
  });
});

describe('parsePrometheusText', () => {
  it('rejects what a Prometheus server would reject', () => {
    expect(() => parsePrometheusText('x{a="1"} one\n')).toThrow(PromParseError);
    expect(() => parsePrometheusText('x{a=1} 1\n')).toThrow(/quoted/);
    expect(() => parsePrometheusText('# TYPE x wobble\n')).toThrow(/unknown type/);
    expect(() => parsePrometheusText('a 1\nb 1\na 2\n')).toThrow(/two places/);
  });
});

describe('sglang relabelling', () => {
  const body = (port: string): string =>
    [
      '# HELP sglang:num_running_reqs The number of running requests.',
      '# TYPE sglang:num_running_reqs gauge',
      `sglang:num_running_reqs{model_name="qwen",engine="${port}"} 3.0`,
      '# HELP sglang:generation_tokens_total Number of generation tokens processed.',
      '# TYPE sglang:generation_tokens_total counter',
      'sglang:generation_tokens_total{model_name="qwen"} 1234.0',
      '# HELP sglang:generation_tokens_created Number of generation tokens processed.',
      '# TYPE sglang:generation_tokens_created gauge',
      'sglang:generation_tokens_created{model_name="qwen"} 1.7e9',
      '# HELP sglang:time_to_first_token_seconds Histogram of TTFT.',
      '# TYPE sglang:time_to_first_token_seconds histogram',
      'sglang:time_to_first_token_seconds_bucket{le="1.0",model_name="qwen"} 2.0',
      'sglang:time_to_first_token_seconds_bucket{le="+Inf",model_name="qwen"} 4.0',
      'sglang:time_to_first_token_seconds_sum{model_name="qwen"} 9.5',
      'sglang:time_to_first_token_seconds_count{model_name="qwen"} 4.0',
      '',
    ].join('\n');

  it('merges several engines into one family each, labelled by engine, dropping *_created', () => {
    const { families, errors } = relabelSglang([
      { engine: 'gpu0', text: body('30000') },
      { engine: 'gpu1', text: body('30001') },
    ]);
    expect(errors).toEqual([]);
    expect(families.map((f) => f.name)).toEqual([
      'engy_sglang_num_running_reqs',
      'engy_sglang_generation_tokens_total',
      'engy_sglang_time_to_first_token_seconds',
    ]);
    const running = family(families, 'engy_sglang_num_running_reqs');
    expect(running.samples.map((s) => s.labels)).toEqual([
      [['engine', 'gpu0'], ['model_name', 'qwen']],
      [['engine', 'gpu1'], ['model_name', 'qwen']],
    ]);
    expect(family(families, 'engy_sglang_time_to_first_token_seconds').samples).toHaveLength(8);
  });

  it('leaves out a body that does not parse and says which engine sent it', () => {
    const { families, errors } = relabelSglang([
      { engine: 'gpu0', text: 'garbage{ 1\n' },
      { engine: 'gpu1', text: body('30001') },
    ]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^engine gpu0: line 1/);
    expect(family(families, 'engy_sglang_num_running_reqs').samples).toHaveLength(1);
  });
});

describe('EngyMetrics', () => {
  it('serves every documented name with its declared type, in strict exposition format', () => {
    const m = new EngyMetrics();
    m.observeMiner({ state: 'probing', legsConnected: 8, legsAdmitted: 7, inFlight: 3 });
    m.recordRequest({ outcome: 'ok', ttftSeconds: 1.2, tpotSeconds: 0.03, promptTokens: 100, completionTokens: 20, cachedTokens: 64 });
    m.recordRequest({ outcome: 'error' });
    m.recordProofBuild(0.02);
    m.setEventLoopLag(0.004);
    m.observeServe([{ engine: 'gpu0', state: 'ready', up: true, restarts: 2 }]);
    m.observeGpus([{ index: 0, uuid: 'GPU-abc', utilizationRatio: 0.9, memoryUsedBytes: 1e9, memoryTotalBytes: 2.4e10, temperatureCelsius: 70, powerWatts: 300, powerLimitWatts: 450 }]);
    m.observeValidator({ lastSubmitBlock: 1000, currentBlock: 1090 });
    m.recordSubmission('accepted');
    m.observeCommitReveal({ enabled: true, pending: 2, nextRevealBlock: 1110, nextRevealRound: 22_000_000, lastRevealLanded: true });
    m.setSglangScrapes([{ engine: 'gpu0', text: '# TYPE sglang:num_queue_reqs gauge\nsglang:num_queue_reqs{model_name="q"} 0\n' }]);

    const text = m.renderMetrics();
    assertStrictExposition(text);
    const families = parsePrometheusText(text);
    for (const [name, type] of Object.entries(ENGY_METRIC_NAMES)) {
      const f = family(families, name);
      expect(f.type, name).toBe(type);
      expect(f.help.length, `${name} has help`).toBeGreaterThan(0);
      expect(f.samples.length, `${name} has samples`).toBeGreaterThan(0);
    }
    expect(text).toContain('engy_miner_state{state="probing"} 1\n');
    expect(text).toContain('engy_miner_state{state="active"} 0\n');
    expect(text).toContain('engy_miner_tokens_total{kind="cached"} 64\n');
    expect(text).toContain('engy_serve_restarts_total{engine="gpu0"} 2\n');
    expect(text).toContain('engy_serve_state{engine="gpu0",state="ready"} 1\n');
    expect(text).toContain('engy_gpu_utilization_ratio{gpu="0",uuid="GPU-abc"} 0.9\n');
    expect(text).toContain('engy_validator_blocks_since_update 90\n');
    expect(text).toContain('engy_sglang_num_queue_reqs{engine="gpu0",model_name="q"} 0\n');
  });

  it('drops GPUs and engines that left the snapshot', () => {
    const m = new EngyMetrics();
    m.observeGpus([{ index: 0, uuid: 'a', temperatureCelsius: 50 }, { index: 1, uuid: 'b', temperatureCelsius: 60 }]);
    m.observeServe([{ engine: 'gpu0', state: 'ready', up: true, restarts: 0 }, { engine: 'gpu1', state: 'crashed', up: false, restarts: 1 }]);
    m.observeGpus([{ index: 0, uuid: 'a', temperatureCelsius: 51 }]);
    m.observeServe([{ engine: 'gpu0', state: 'ready', up: true, restarts: 0 }]);
    const text = m.renderMetrics();
    expect(text).not.toContain('uuid="b"');
    expect(text).not.toContain('engy_serve_engine_up{engine="gpu1"}');
    expect(text).toContain('engy_gpu_temperature_celsius{gpu="0",uuid="a"} 51\n');
  });
});
