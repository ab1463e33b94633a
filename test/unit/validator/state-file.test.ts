import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, writeState } from '../../../electron/engine/validator/state-file.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'engy-vstate-'));
const digest = 'a'.repeat(64);

describe('state file', () => {
  it('round-trips every field', () => {
    const p = join(dir(), 'state.json');
    const s = { lastApplied: 4, lastSubmitBlock: 1200, lastSubmitMs: 1_700_000_000_123, cachedWeights: [['5Abc', 7]] as Array<[string, number]>, cachedDigest: digest };
    writeState(p, s);
    expect(readState(p)).toEqual({ state: s, dropped: [] });
    // Seconds are written too, so an upstream validator reading this file keeps its schedule.
    expect(JSON.parse(readFileSync(p, 'utf8')).last_submit_ts).toBeCloseTo(1_700_000_000.123);
  });

  it('drops each corrupt field on its own and keeps the rest', () => {
    const p = join(dir(), 'state.json');
    writeFileSync(p, JSON.stringify({ last_applied: true, last_submit_block: 77, last_submit_ts: 'yesterday', cached_weights: [['5Abc', 70000]], cached_digest: digest }));
    const r = readState(p);
    expect(r.state).toEqual({ lastApplied: null, lastSubmitBlock: 77, lastSubmitMs: null, cachedWeights: null, cachedDigest: digest });
    expect(r.dropped.sort()).toEqual(['cached_weights', 'last_applied', 'last_submit_ts']);
  });

  it('refuses booleans as numbers and malformed vectors', () => {
    const p = join(dir(), 'state.json');
    writeFileSync(p, JSON.stringify({ last_applied: 3, last_submit_block: false, cached_weights: [['5Abc', true]], cached_digest: 'nothex' }));
    expect(readState(p).state).toEqual({ lastApplied: 3, lastSubmitBlock: null, lastSubmitMs: null, cachedWeights: null, cachedDigest: null });
  });

  it('reads upstream files (seconds) and treats garbage or absence as empty', () => {
    const d = dir();
    writeFileSync(join(d, 'up.json'), JSON.stringify({ last_applied: 2, last_submit_block: 10, last_submit_ts: 1000.5, cached_weights: [], cached_digest: null }));
    expect(readState(join(d, 'up.json')).state).toMatchObject({ lastApplied: 2, lastSubmitMs: 1_000_500, cachedWeights: [] });
    writeFileSync(join(d, 'bad.json'), '{"last_applied": 3, "cached_w');
    expect(readState(join(d, 'bad.json'))).toMatchObject({ state: { lastApplied: null, cachedWeights: null }, dropped: ['(whole file: not JSON)'] });
    expect(readState(join(d, 'none.json')).dropped).toEqual([]);
  });
});
