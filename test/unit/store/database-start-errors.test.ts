// Two database states that used to stop the engine with SQLite's raw words: a table whose columns
// were changed under us ("no such column: json") and a disk that is full while a migration runs
// ("cannot rollback - no transaction is active", which hid the real cause). Both are now a sentence.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database, firstSchema } from '../../../electron/engine/store/database.ts';
import { NOTIFICATION_MIGRATIONS } from '../../../electron/engine/notify/notification-store.ts';
import { describeError } from '../../../electron/engine/lib/fs-errors.ts';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'engy-dbstart-')), 'engy-panel.sqlite');

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
}

describe('database states that stop the start are said in a sentence', () => {
  it('a table missing a column its domain needs', () => {
    const path = fresh();
    const db = new Database(path);
    db.migrate(NOTIFICATION_MIGRATIONS);
    db.db.exec('DROP TABLE notifications');
    db.db.exec('CREATE TABLE notifications (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)');
    db.close();

    const again = new Database(path);
    try {
      const e = thrown(() => again.migrate(NOTIFICATION_MIGRATIONS));
      expect(describeError(e)).toBe(
        `The history database ${path} is damaged: its table notifications has no column json (changed by another program or by hand). Stop the engine, move the file aside (mv ${path} ${path}.old) and start again: a fresh one is made.`,
      );
    } finally {
      again.close();
    }
  });

  it('a table that is missing altogether', () => {
    const path = fresh();
    const db = new Database(path);
    db.migrate(NOTIFICATION_MIGRATIONS);
    db.db.exec('DROP TABLE notifications');
    db.close();
    const again = new Database(path);
    const e = thrown(() => again.migrate(NOTIFICATION_MIGRATIONS));
    again.close();
    expect(describeError(e)).toMatch(/^The history database .* is damaged: its table notifications is missing/);
  });

  it('a full disk during a migration names the full disk, not a failed rollback', () => {
    const path = fresh();
    const db = new Database(path);
    try {
      const pages = (db.db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
      db.db.exec(`PRAGMA max_page_count = ${pages}`);
      const big = firstSchema('filler-test', 'a table that needs pages', 'CREATE TABLE filler (b BLOB)', `INSERT INTO filler (b) VALUES (zeroblob(${1 << 20}))`);
      const e = thrown(() => db.migrate(big));
      expect(describeError(e)).toBe('the disk holding the database is full: free some space (df -h on its folder) and start again.');
      expect(db.version('filler-test')).toBe(0);
    } finally {
      db.close();
    }
  });
});
