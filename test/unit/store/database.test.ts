import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database, type Migration } from '../../../electron/engine/store/database.ts';

const v1: Migration = { version: 1, description: 'requests', up: (db) => db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT)') };
const v2: Migration = { version: 2, description: 'add b', up: (db) => db.exec('ALTER TABLE t ADD COLUMN b INTEGER DEFAULT 7') };

describe('SQLite store with per-domain forward-only migrations', () => {
  it('runs pending migrations in order, in WAL mode, and keeps data across upgrades', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'engy-db-')), 'x.sqlite');
    const a = new Database(path);
    expect(a.migrate({ domain: 'miner', migrations: [v1] })).toBe(1);
    a.db.prepare('INSERT INTO t(a) VALUES (?)').run('kept');
    a.close();
    const b = new Database(path);
    expect((b.db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal');
    expect(b.migrate({ domain: 'miner', migrations: [v2, v1] })).toBe(2);
    expect(b.db.prepare('SELECT a, b FROM t').all()).toEqual([{ a: 'kept', b: 7 }]);
    expect(b.version('validator')).toBe(0);
    b.close();
  });

  it('rolls back a failing migration and records nothing', () => {
    const db = new Database(':memory:');
    const broken: Migration = { version: 2, description: 'broken', up: (d) => d.exec('ALTER TABLE missing ADD COLUMN x') };
    db.migrate({ domain: 'd', migrations: [v1] });
    expect(() => db.migrate({ domain: 'd', migrations: [v1, broken] })).toThrow();
    expect(db.version('d')).toBe(1);
  });

  it('refuses a database from a newer build and gaps in numbering', () => {
    const db = new Database(':memory:');
    db.migrate({ domain: 'd', migrations: [v1, v2] });
    expect(() => db.migrate({ domain: 'd', migrations: [v1] })).toThrow(/newer engy panel/);
    expect(() => db.migrate({ domain: 'e', migrations: [v2] })).toThrow(/without gaps/);
  });
});
