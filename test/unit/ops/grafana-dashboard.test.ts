import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGY_METRIC_NAMES } from '../../../electron/engine/metrics/engy-metrics.ts';
import { relabelSglang } from '../../../electron/engine/metrics/sglang-relabel.ts';
import { metricsText } from '../../doubles/fake-sglang/metrics.ts';
import type { FakeEngine } from '../../doubles/fake-sglang/engine.ts';

const REPO = join(import.meta.dirname, '..', '..', '..');

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { uid: string };
  repeat?: string;
  targets?: Array<{ expr: string; refId: string }>;
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; query: unknown; definition?: string }> };
}

const dashboard = JSON.parse(readFileSync(join(REPO, 'resources', 'grafana', 'engy-fleet.json'), 'utf8')) as Dashboard;

/** The families an sglang engine serves (as the fake sglang double serves them), relabelled by the panel. */
function sglangFamilies(): Map<string, string> {
  const engine = {
    metrics: {
      running: 1,
      queued: 0,
      lastGenThroughput: 10,
      promptTokensTotal: 1,
      generationTokensTotal: 1,
      cachedTokensTotal: 0,
      requestsTotal: 1,
      abortedTotal: 0,
      ttft: [0.1],
      itl: [0.01],
      e2e: [1],
    },
    cacheHitRate: 0,
  };
  const text = metricsText(engine as unknown as FakeEngine, 'qwen', 1000, 10);
  const { families, errors } = relabelSglang([{ engine: 'gpu0', text }]);
  expect(errors).toEqual([]);
  return new Map(families.map((f) => [f.name, f.type]));
}

function exprs(): string[] {
  const out: string[] = [];
  for (const p of dashboard.panels) for (const t of p.targets ?? []) out.push(t.expr);
  for (const v of dashboard.templating.list) {
    if (typeof v.query === 'object' && v.query !== null && 'query' in v.query) out.push(String((v.query as { query: unknown }).query));
    if (v.definition) out.push(v.definition);
  }
  return out;
}

describe('resources/grafana/engy-fleet.json', () => {
  it('references only metrics the panel serves (engy_* names and relabelled sglang families)', () => {
    const sglang = sglangFamilies();
    const known = new Map<string, string>([...Object.entries(ENGY_METRIC_NAMES), ...sglang]);
    const referenced = new Set<string>();
    for (const e of exprs()) for (const m of e.matchAll(/\bengy_[a-zA-Z0-9_]+/g)) referenced.add(m[0]);
    expect(referenced.size).toBeGreaterThan(15);
    const missing: string[] = [];
    for (const name of referenced) {
      const base = name.replace(/_(bucket|sum|count)$/, '');
      if (known.get(name) !== undefined && !/_(bucket|sum|count)$/.test(name)) {
        if (known.get(name) === 'histogram') missing.push(`${name} is a histogram: query ${name}_bucket`);
        continue;
      }
      if (base !== name && known.get(base) === 'histogram') continue;
      missing.push(name);
    }
    expect(missing).toEqual([]);
  });

  it('covers what a fleet operator watches', () => {
    const all = exprs().join('\n');
    for (const must of [
      'engy_miner_state',
      'engy_miner_legs_connected',
      'engy_miner_legs_admitted',
      'engy_miner_requests_total',
      'engy_miner_ttft_seconds_bucket',
      'engy_miner_tpot_seconds_bucket',
      'engy_miner_tokens_total',
      'engy_gpu_utilization_ratio',
      'engy_gpu_temperature_celsius',
      'engy_gpu_power_watts',
      'engy_serve_restarts_total',
      'engy_validator_blocks_since_update',
    ]) {
      expect(all, must).toContain(must);
    }
    expect(all).toContain('vector($ttft_target_s)');
    expect(all).toContain('vector($tpot_target_s)');
  });

  it('is importable: unique panel ids, every panel placed, datasource and repeat variables defined', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const vars = new Set(dashboard.templating.list.map((v) => v.name));
    for (const p of dashboard.panels) {
      expect(p.gridPos.w, p.title).toBeGreaterThan(0);
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      if (p.type !== 'row') expect(p.datasource?.uid, p.title).toBe('${datasource}');
      if (p.repeat) expect(vars.has(p.repeat), p.repeat).toBe(true);
      for (const t of p.targets ?? []) for (const m of t.expr.matchAll(/\$(\w+)/g)) if (!m[1]!.startsWith('__')) expect(vars.has(m[1]!), `${p.title}: $${m[1]}`).toBe(true);
    }
    expect(dashboard.uid).toBe('engy-fleet');
    expect(dashboard.panels.some((p) => p.type === 'row' && p.repeat === 'instance')).toBe(true);
  });
});
