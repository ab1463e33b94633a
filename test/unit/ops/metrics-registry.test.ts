import { describe, expect, it } from 'vitest';
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
    expect(
      suffixes.map((s) => current + s),
      `${name} outside its family ${current}`,
    ).toContain(name);
  }
}

function family(families: Family[], name: string): Family {
  const f = families.find((x) => x.name === name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
}

describe('EngyMetrics on prom-client', () => {
  it('renders histograms with HELP/TYPE, cumulative buckets, _sum and _count', async () => {
    const m = new EngyMetrics();
    for (const v of [0.05, 0.5, 0.7, 5, 50]) m.recordRequest({ outcome: 'ok', ttftSeconds: v });
    m.recordRequest({ outcome: 'ok', ttftSeconds: NaN });
    const text = await m.renderMetrics();
    assertStrictExposition(text);
    const cumulative = { '0.1': 1, '1': 3, '10': 4, '+Inf': 5 };
    const ttft = text.split('\n').filter((l) => l.startsWith('engy_miner_ttft_seconds'));
    for (const [le, n] of Object.entries(cumulative)) expect(ttft).toContain(`engy_miner_ttft_seconds_bucket{le="${le}"} ${n}`);
    expect(ttft.slice(-2)).toEqual(['engy_miner_ttft_seconds_sum 56.25', 'engy_miner_ttft_seconds_count 5']);
    // The NaN timing was not observed, but its request was counted.
    expect(text).toMatch(/^# TYPE engy_miner_ttft_seconds histogram$/m);
    expect(text).toMatch(/^engy_miner_requests_total\{outcome="ok"\} 6$/m);
  });

  it('escapes label values so the body still parses', async () => {
    const m = new EngyMetrics();
    m.observeGpus([{ index: 0, uuid: 'C:\\a "b"\nc', temperatureCelsius: 61.5 }]);
    const text = await m.renderMetrics();
    assertStrictExposition(text);
    expect(text).toContain('engy_gpu_temperature_celsius{gpu="0",uuid="C:\\\\a \\"b\\"\\nc"} 61.5\n');
    const temp = family(parsePrometheusText(text), 'engy_gpu_temperature_celsius');
    expect(temp.samples[0]!.labels).toEqual([
      ['gpu', '0'],
      ['uuid', 'C:\\a "b"\nc'],
    ]);
  });

  it('adds the default process metrics and keeps each instance on its own registry', async () => {
    const a = new EngyMetrics();
    const b = new EngyMetrics();
    a.recordSubmission('accepted');
    const text = await a.renderMetrics();
    const names = parsePrometheusText(text).map((f) => f.name);
    for (const n of ['process_cpu_user_seconds_total', 'process_start_time_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) expect(names, n).toContain(n);
    expect(text).toContain('engy_validator_submissions_total{outcome="accepted"} 1\n');
    expect(await b.renderMetrics()).not.toContain('outcome="accepted"');
  });

  it('shows no sample for a gauge never set, and none again after it is cleared', async () => {
    const m = new EngyMetrics();
    const before = await m.renderMetrics();
    expect(before).toContain('# TYPE engy_validator_last_submit_block gauge\n');
    expect(before).not.toMatch(/^engy_validator_last_submit_block /m);
    expect(before).not.toMatch(/^engy_miner_legs_connected /m);
    m.observeCommitReveal({ enabled: true, pending: 0, nextRevealBlock: 5, nextRevealRound: null, lastRevealLanded: null });
    expect(await m.renderMetrics()).toMatch(/^engy_validator_next_reveal_block 5$/m);
    m.observeCommitReveal({ enabled: null, pending: 0, nextRevealBlock: null, nextRevealRound: null, lastRevealLanded: null });
    expect(await m.renderMetrics()).not.toMatch(/^engy_validator_next_reveal_block /m);
  });

  it('mirrors restart totals as a counter that only rises, a drop reading as a reset', async () => {
    const m = new EngyMetrics();
    const restarts = async () => /engy_serve_restarts_total\{engine="gpu0"\} (\d+)/.exec(await m.renderMetrics())?.[1];
    m.observeServe([{ engine: 'gpu0', state: 'ready', up: true, restarts: 2 }]);
    expect(await restarts()).toBe('2');
    m.observeServe([{ engine: 'gpu0', state: 'ready', up: true, restarts: 5 }]);
    expect(await restarts()).toBe('5');
    m.observeServe([{ engine: 'gpu0', state: 'ready', up: true, restarts: 1 }]);
    expect(await restarts()).toBe('1');
  });

  it('skips an sglang family whose name we already serve instead of declaring it twice', async () => {
    const m = new EngyMetrics();
    m.setSglangScrapes([{ engine: 'gpu0', text: '# TYPE engy_sglang_x gauge\nengy_sglang_x 1\n# TYPE sglang:y gauge\nsglang:y 2\n' }]);
    const text = await m.renderMetrics();
    assertStrictExposition(text);
    expect(text).toContain('engy_sglang_y{engine="gpu0"} 2\n');
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
    expect(families.map((f) => f.name)).toEqual(['engy_sglang_num_running_reqs', 'engy_sglang_generation_tokens_total', 'engy_sglang_time_to_first_token_seconds']);
    const running = family(families, 'engy_sglang_num_running_reqs');
    expect(running.samples.map((s) => s.labels)).toEqual([
      [
        ['engine', 'gpu0'],
        ['model_name', 'qwen'],
      ],
      [
        ['engine', 'gpu1'],
        ['model_name', 'qwen'],
      ],
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
  it('serves every documented name with its declared type, in strict exposition format', async () => {
    const m = new EngyMetrics();
    m.observeMiner({ state: 'probing', legsConnected: 8, legsAdmitted: 7, inFlight: 3, withdrawn: [{ worker: '1', cause: 'the serve cannot be reached: connection refused' }] });
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

    const text = await m.renderMetrics();
    assertStrictExposition(text);
    const families = parsePrometheusText(text);
    for (const [name, type] of Object.entries(ENGY_METRIC_NAMES)) {
      const f = family(families, name);
      expect(f.type, name).toBe(type);
      expect(f.help.length, `${name} has help`).toBeGreaterThan(0);
      expect(f.samples.length, `${name} has samples`).toBeGreaterThan(0);
    }
    expect(text).toContain('engy_miner_state{state="probing"} 1\n');
    expect(text).toContain('engy_miner_withdrawn{worker="1",reason="serve unhealthy",cause="the serve cannot be reached: connection refused"} 1\n');
    expect(text).toContain('engy_miner_state{state="active"} 0\n');
    expect(text).toContain('engy_miner_tokens_total{kind="cached"} 64\n');
    expect(text).toContain('engy_serve_restarts_total{engine="gpu0"} 2\n');
    expect(text).toContain('engy_serve_state{engine="gpu0",state="ready"} 1\n');
    expect(text).toContain('engy_gpu_utilization_ratio{gpu="0",uuid="GPU-abc"} 0.9\n');
    expect(text).toContain('engy_validator_blocks_since_update 90\n');
    expect(text).toContain('engy_sglang_num_queue_reqs{engine="gpu0",model_name="q"} 0\n');
  });

  it('drops GPUs and engines that left the snapshot', async () => {
    const m = new EngyMetrics();
    m.observeGpus([
      { index: 0, uuid: 'a', temperatureCelsius: 50 },
      { index: 1, uuid: 'b', temperatureCelsius: 60 },
    ]);
    m.observeServe([
      { engine: 'gpu0', state: 'ready', up: true, restarts: 0 },
      { engine: 'gpu1', state: 'crashed', up: false, restarts: 1 },
    ]);
    m.observeGpus([{ index: 0, uuid: 'a', temperatureCelsius: 51 }]);
    m.observeServe([{ engine: 'gpu0', state: 'ready', up: true, restarts: 0 }]);
    const text = await m.renderMetrics();
    expect(text).not.toContain('uuid="b"');
    expect(text).not.toContain('engy_serve_engine_up{engine="gpu1"}');
    expect(text).toContain('engy_gpu_temperature_celsius{gpu="0",uuid="a"} 51\n');
  });
});
