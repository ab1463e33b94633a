// A miner's worker id across restarts of one data dir: kept for the same worker, model and declared
// capacity; new when the capacity changes (the gateway pins capacity to the id); a damaged or hostile
// file costs one new id, never a crash.
import { mkdtempSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { persistentWorkerId } from '../../../electron/engine/miner/worker-id-store.ts';

const file = () => join(mkdtempSync(join(tmpdir(), 'engy-wid-')), 'miner', 'worker-ids.json');
const key = { workerName: 'box-a', model: 'qwen3.6-35b-a3b', maxInflight: 24 };

describe('persistentWorkerId', () => {
  it('keeps the id across starts, per worker and capacity, in an owner-only file', () => {
    const f = file();
    const first = persistentWorkerId(f, key);
    expect(first).toMatchObject({ reused: false, saveError: null });
    expect(first.workerId).toMatch(/^[0-9a-f]{32}$/);
    expect(persistentWorkerId(f, key)).toEqual({ workerId: first.workerId, reused: true, saveError: null });
    expect(statSync(f).mode & 0o777).toBe(0o600);
    const other = persistentWorkerId(f, { ...key, workerName: 'box-b' });
    const recapacity = persistentWorkerId(f, { ...key, maxInflight: 32 });
    expect(new Set([first.workerId, other.workerId, recapacity.workerId]).size).toBe(3);
    expect(persistentWorkerId(f, key).workerId).toBe(first.workerId);
  });

  it('mints a new id over a damaged or hostile file', () => {
    for (const text of [
      '{not json',
      '[]',
      'null',
      '{"__proto__":{"workerId":"00000000000000000000000000000000","createdAt":"x"}}',
      `{"box-a|qwen3.6-35b-a3b|24":{"workerId":"../../etc","createdAt":"x"}}`,
    ]) {
      const f = file();
      mkdirSync(dirname(f), { recursive: true });
      writeFileSync(f, text);
      const r = persistentWorkerId(f, key);
      expect(r.reused, text).toBe(false);
      expect(r.workerId).toMatch(/^[0-9a-f]{32}$/);
      expect(JSON.parse(readFileSync(f, 'utf8'))).toHaveProperty(['box-a|qwen3.6-35b-a3b|24', 'workerId'], r.workerId);
    }
  });

  it('still gives an id when the file cannot be written', () => {
    const parent = join(mkdtempSync(join(tmpdir(), 'engy-wid-')), 'a-file');
    writeFileSync(parent, 'x');
    const r = persistentWorkerId(join(parent, 'miner', 'worker-ids.json'), key);
    expect(r.workerId).toMatch(/^[0-9a-f]{32}$/);
    expect(r.saveError).not.toBeNull();
  });
});
