// Settings refuse an in-flight override the serve plan cannot serve (999 against a plan of 24), with a
// sentence naming the plan's limit; empty, within the plan, or an external serve are accepted.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SettingsStore } from '../../../electron/engine/settings/settings-store.ts';
import { inflightRefusal } from '../../../electron/engine/settings/inflight-limit.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import { AppFailure } from '../../../shared/errors.ts';
import type { ServePlan, ServeEnginePlan } from '../../../shared/hardware.ts';

const engine = (declaredInflight: number) => ({ declaredInflight }) as ServeEnginePlan;
const plan = (...d: number[]): ServePlan => ({ modelId: 'm', engines: d.map(engine), maxInflight: d.reduce((a, b) => a + b, 0), rationale: [] });

function store() {
  const dir = mkdtempSync(join(tmpdir(), 'engy-inflight-'));
  const file = join(dir, 'settings.json');
  const s = new SettingsStore(file, new LogHub().logger('settings'));
  let current: ServePlan | null = plan(24);
  const check = s.addCheck((next) => inflightRefusal(next, current));
  return { s, file, check, setPlan: (p: ServePlan | null) => (current = p) };
}

describe('in-flight limit against the serve plan', () => {
  it('refuses 999 against a plan of 24 with a sentence, and keeps the saved value', () => {
    const { s, file } = store();
    s.update({ mining: { maxInflightOverride: 20 } });
    let err: unknown;
    try {
      s.update({ mining: { maxInflightOverride: 999 } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppFailure);
    expect((err as AppFailure).code).toBe('bad-request');
    expect((err as AppFailure).message).toBe(
      "In-flight limit 999 is more than the serve plan allows (24 concurrent requests per engine on this hardware): the serve would queue the rest and TTFT would break the gate. Set at most 24, or leave it empty to use the plan's limit.",
    );
    expect(s.get().mining.maxInflightOverride).toBe(20);
    expect(JSON.parse(readFileSync(file, 'utf8')).mining.maxInflightOverride).toBe(20);
  });

  it('accepts the plan limit, empty, an external serve, no plan yet; the smallest engine is the bound', () => {
    const { s, setPlan, check } = store();
    expect(s.update({ mining: { maxInflightOverride: 24 } }).mining.maxInflightOverride).toBe(24);
    expect(s.update({ mining: { maxInflightOverride: null } }).mining.maxInflightOverride).toBeNull();
    expect(s.update({ mining: { runtime: 'external', maxInflightOverride: 500 } }).mining.maxInflightOverride).toBe(500);
    s.update({ mining: { runtime: null, maxInflightOverride: null } });
    setPlan(null);
    expect(s.update({ mining: { maxInflightOverride: 300 } }).mining.maxInflightOverride).toBe(300);
    setPlan(plan(30, 14));
    expect(() => s.update({ mining: { maxInflightOverride: 20 } })).toThrow(/at most 14/);
    // Disposed, the rule no longer applies.
    void check.dispose();
    expect(s.update({ mining: { maxInflightOverride: 20 } }).mining.maxInflightOverride).toBe(20);
  });

  it('hostile patches are still refused by the schema first', () => {
    const { s } = store();
    for (const bad of [
      { mining: { maxInflightOverride: '999' } },
      { mining: { maxInflightOverride: -1 } },
      { mining: { maxInflightOverride: 1e9 } },
      JSON.parse('{"__proto__": {"x": 1}, "mining": {"maxInflightOverride": 2.5}}'),
    ]) {
      expect(() => s.update(bad)).toThrow(AppFailure);
    }
    expect(s.get().mining.maxInflightOverride).toBeNull();
  });
});
