// Upstream's tests/test_state.py edges that had no counterpart here (see docs/validator.md, the table).
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, writeState, EMPTY_STATE } from '../../../electron/engine/validator/state-file.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'engy-vstate-up-'));

describe('state file edges (upstream test_state.py)', () => {
  it('writes atomically: only the state file is left in the folder, no temp file', () => {
    const d = dir();
    const p = join(d, 'state.json');
    writeState(p, { ...EMPTY_STATE, lastApplied: 1 });
    writeState(p, { ...EMPTY_STATE, lastApplied: 2 });
    expect(readdirSync(d)).toEqual(['state.json']);
    expect(readState(p).state.lastApplied).toBe(2);
  });

  it('creates a missing parent folder', () => {
    const p = join(dir(), 'a', 'b', 'state.json');
    writeState(p, { ...EMPTY_STATE, lastApplied: 5, lastSubmitBlock: 9 });
    expect(readState(p).state).toMatchObject({ lastApplied: 5, lastSubmitBlock: 9 });
  });

  it('reads a truncated file, a non-object top level and a missing file as empty, never throwing', () => {
    const d = dir();
    for (const [name, body] of [
      ['trunc.json', '{"last_applied": 4, "last_submit_bl'],
      ['arr.json', '[1,2,3]'],
      ['num.json', '42'],
      ['null.json', 'null'],
      ['str.json', '"state"'],
      ['empty.json', ''],
    ] as const) {
      writeFileSync(join(d, name), body);
      expect(readState(join(d, name)).state, name).toEqual(EMPTY_STATE);
    }
    expect(readState(join(d, 'absent.json'))).toEqual({ state: EMPTY_STATE, dropped: [] });
    // A folder where the file should be is also "nothing read", not a crash.
    expect(readState(d).state).toEqual(EMPTY_STATE);
  });

  it('accepts integer seconds for last_submit_ts (upstream writes time.time(), sometimes whole)', () => {
    const p = join(dir(), 'state.json');
    writeFileSync(p, JSON.stringify({ last_applied: 1, last_submit_ts: 1_700_000_000 }));
    expect(readState(p)).toEqual({ state: { ...EMPTY_STATE, lastApplied: 1, lastSubmitMs: 1_700_000_000_000 }, dropped: [] });
  });

  it('ignores prototype-named keys and never lets them reach the state', () => {
    const p = join(dir(), 'state.json');
    writeFileSync(p, '{"__proto__": {"lastApplied": 99}, "constructor": 1, "last_applied": 3}');
    const r = readState(p);
    expect(r.state).toEqual({ ...EMPTY_STATE, lastApplied: 3 });
    expect(({} as Record<string, unknown>).lastApplied).toBeUndefined();
  });

  it('refuses negative, fractional and unsafe numbers field by field', () => {
    const p = join(dir(), 'state.json');
    writeFileSync(p, JSON.stringify({ last_applied: -1, last_submit_block: 1.5, last_submit_ts: -3, cached_digest: 'A'.repeat(64) }));
    const r = readState(p);
    expect(r.state).toEqual(EMPTY_STATE);
    expect(r.dropped.sort()).toEqual(['cached_digest', 'last_applied', 'last_submit_block', 'last_submit_ts']);
    writeFileSync(p, `{"last_applied": 9007199254740993, "last_submit_block": 0}`);
    expect(readState(p).state).toEqual(EMPTY_STATE);
  });
});
