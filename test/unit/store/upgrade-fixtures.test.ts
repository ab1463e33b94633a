// Upgrades never lose data: every earlier schema of every domain, and every settings schema that
// shipped, opens with this build and keeps what it held.
import { describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database, type DomainMigrations } from '../../../electron/engine/store/database.ts';
import { MINER_MIGRATIONS } from '../../../electron/engine/store/miner-tables.ts';
import { VALIDATOR_MIGRATIONS } from '../../../electron/engine/validator/history.ts';
import { SettingsStore } from '../../../electron/engine/settings/settings-store.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import { SETTINGS_SCHEMA_VERSION } from '../../../shared/settings.ts';

/** A row for each table that exists at a given schema, so the test can see it survive. */
const SEED: Record<string, Array<{ since: number; sql: string }>> = {
  miner: [
    {
      since: 1,
      sql: "INSERT INTO miner_requests(corr_id, request_id, leg, engine, stream, received_at, e2e_ms, prompt_tokens, completion_tokens, cached_tokens, outcome) VALUES ('c1','r1',0,'engine-0',1,1000,250,13000,4096,0,'ok')",
    },
    { since: 2, sql: "INSERT INTO miner_audits(at, request_id, score, chunks, error) VALUES (2000,'r1',0.18,128,NULL)" },
  ],
  validator: [{ since: 1, sql: "INSERT INTO validator_submissions(at, kind, epoch_index, uids, weights, dropped_share, ok) VALUES (3000,'fresh',41,'[1,3]','[30000,35535]',0,1)" }],
};

const COUNTS: Record<string, string[]> = { miner: ['miner_requests', 'miner_audits'], validator: ['validator_submissions'] };

function upToVersion(set: DomainMigrations, v: number): DomainMigrations {
  return { domain: set.domain, migrations: set.migrations.slice(0, v) };
}

describe('upgrades from every earlier schema', () => {
  for (const set of [MINER_MIGRATIONS, VALIDATOR_MIGRATIONS]) {
    for (let v = 1; v < set.migrations.length + 1; v++) {
      it(`${set.domain}: a database at schema ${v} opens at schema ${set.migrations.length} with its rows`, () => {
        const path = join(mkdtempSync(join(tmpdir(), 'engy-upgrade-')), 'engy-panel.sqlite');
        const old = new Database(path);
        old.migrate(upToVersion(set, v));
        for (const s of SEED[set.domain]!.filter((x) => x.since <= v)) old.db.exec(s.sql);
        old.close();
        const now = new Database(path);
        expect(now.migrate(set)).toBe(set.migrations.length);
        for (const table of COUNTS[set.domain]!) {
          const expected = SEED[set.domain]!.filter((x) => x.since <= v && x.sql.includes(`INTO ${table}(`)).length;
          expect((now.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n).toBe(expected);
        }
        now.close();
      });
    }
  }

  it('every settings schema that shipped has a fixture, and each opens with its values kept', () => {
    const dir = join(import.meta.dirname, '..', '..', 'fixtures', 'settings');
    const fixtures = readdirSync(dir).filter((f) => /^v\d+\.json$/.test(f));
    expect(fixtures.map((f) => Number(f.slice(1, -5))).sort()).toEqual(Array.from({ length: SETTINGS_SCHEMA_VERSION }, (_, i) => i + 1));
    for (const f of fixtures) {
      const file = join(mkdtempSync(join(tmpdir(), 'engy-settings-up-')), 'settings.json');
      copyFileSync(join(dir, f), file);
      const s = new SettingsStore(file, silentLogger).get();
      expect(s.schemaVersion).toBe(SETTINGS_SCHEMA_VERSION);
      expect(s.mining.workerName).toBe('garage-rig');
      expect(s.wallet).toEqual({ path: null, name: 'main', hotkey: 'rig1' });
      expect(s.desktop.autoUpdate).toBe(false);
      expect(s.mutedNotifications).toEqual(['gate-at-risk']);
    }
  });
});
