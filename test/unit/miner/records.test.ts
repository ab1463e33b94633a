import { describe, expect, it } from 'vitest';
import { RequestRecords } from '../../../electron/engine/miner/request-records.ts';
import { StartStagger } from '../../../electron/engine/miner/start-stagger.ts';
import { Database } from '../../../electron/engine/store/database.ts';
import { requestRecord } from '../../helpers/request-record.ts';

describe('request records', () => {
  it('stores metadata rows in the miner domain and keeps a bounded window', () => {
    const db = new Database(':memory:');
    const r = new RequestRecords(db, 1000, 3);
    for (let i = 0; i < 5; i++) r.add(requestRecord(i, 10_000 + i), 10_000 + i);
    expect(db.version('miner')).toBe(3);
    expect(r.all().map((x) => x.corrId)).toEqual(['c2', 'c3', 'c4']);
    expect(r.recent(2).map((x) => x.corrId)).toEqual(['c4', 'c3']);
    r.add(requestRecord(9, 20_000), 20_000);
    expect(r.all().map((x) => x.corrId)).toEqual(['c9']);
    const rows = db.db.prepare('SELECT corr_id, outcome, prompt_tokens FROM miner_requests ORDER BY id').all() as { corr_id: string }[];
    expect(rows).toHaveLength(6);
    const cols = (db.db.prepare('PRAGMA table_info(miner_requests)').all() as { name: string }[]).map((c) => c.name);
    // Metadata only: no column could hold a prompt or a completion.
    expect(cols.some((c) => /prompt_text|completion_text|content|messages/.test(c))).toBe(false);
    db.close();
  });
});

describe('start stagger', () => {
  it('lets the first engine start at once and each next one a gap after the previous', async () => {
    let now = 1000;
    const s = new StartStagger(30, () => now);
    const waits = Promise.all([s.turn(), s.turn(), s.turn()]);
    expect(await waits).toEqual([0, 30, 60]);
    now = 2000;
    // Long after the last start: no wait again.
    expect(await s.turn()).toBe(0);
  });
});
