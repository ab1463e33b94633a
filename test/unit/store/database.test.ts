import { describe, expect, it, vi } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Database, openDatabase, type Migration } from '../../../electron/engine/store/database.ts';

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

  it('commits queued writes in one batch per tick, and any read sees them first', () => {
    vi.useFakeTimers();
    try {
      const db = new Database(':memory:', { batchMs: 250, batchRows: 1000 });
      db.migrate({ domain: 'd', migrations: [v1] });
      for (let i = 0; i < 10; i++) db.write('INSERT INTO t(a) VALUES (?)', [`r${i}`]);
      expect(db.writeStats).toEqual({ rows: 0, batches: 0, failedBatches: 0 });
      vi.advanceTimersByTime(250);
      expect(db.writeStats).toEqual({ rows: 10, batches: 1, failedBatches: 0 });
      db.write('INSERT INTO t(a) VALUES (?)', ['read-your-write']);
      expect((db.db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).toBe(11);
      expect(db.writeStats.batches).toBe(2);
      db.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('commits at once when the batch is full, and on close', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'engy-db-')), 'x.sqlite');
    const db = new Database(path, { batchRows: 4, batchMs: 60_000 });
    db.migrate({ domain: 'd', migrations: [v1] });
    for (let i = 0; i < 6; i++) db.write('INSERT INTO t(a) VALUES (?)', [`r${i}`]);
    expect(db.writeStats.rows).toBe(4);
    db.close();
    db.write('INSERT INTO t(a) VALUES (?)', ['after close is ignored']);
    const again = new Database(path);
    expect((again.db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).toBe(6);
    again.close();
  });

  it('commits a large batch commitRows at a time, giving the thread a turn between transactions', () => {
    vi.useFakeTimers();
    try {
      const db = new Database(':memory:', { batchMs: 250, batchRows: 1000, commitRows: 3 });
      db.migrate({ domain: 'd', migrations: [v1] });
      for (let i = 0; i < 10; i++) db.write('INSERT INTO t(a) VALUES (?)', [`r${i}`]);
      vi.advanceTimersByTime(250);
      // One transaction per turn of the loop: 3 rows now, the rest on the following turns.
      expect(db.writeStats).toEqual({ rows: 3, batches: 1, failedBatches: 0 });
      vi.advanceTimersToNextTimer();
      expect(db.writeStats).toEqual({ rows: 6, batches: 2, failedBatches: 0 });
      vi.runAllTimers();
      expect(db.writeStats).toEqual({ rows: 10, batches: 4, failedBatches: 0 });
      // A reader still sees every queued row at once, committed in bounded transactions back to back.
      for (let i = 0; i < 7; i++) db.write('INSERT INTO t(a) VALUES (?)', [`s${i}`]);
      expect((db.db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).toBe(17);
      expect(db.writeStats).toEqual({ rows: 17, batches: 7, failedBatches: 0 });
      expect(vi.getTimerCount()).toBe(0);
      db.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("a full batch commits one bounded transaction on the writer's path, the rest later; close commits all", () => {
    vi.useFakeTimers();
    try {
      const path = join(mkdtempSync(join(tmpdir(), 'engy-db-')), 'x.sqlite');
      const db = new Database(path, { batchMs: 60_000, batchRows: 5, commitRows: 2 });
      db.migrate({ domain: 'd', migrations: [v1] });
      for (let i = 0; i < 5; i++) db.write('INSERT INTO t(a) VALUES (?)', [`r${i}`]);
      expect(db.writeStats.rows).toBe(2);
      vi.advanceTimersToNextTimer();
      expect(db.writeStats.rows).toBe(4);
      db.close();
      expect(db.writeStats.rows).toBe(5);
      const again = new Database(path);
      expect((again.db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).toBe(5);
      again.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('ignores a nonsensical commitRows (zero, negative, NaN, a string) for the default', () => {
    for (const commitRows of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, '3' as unknown as number]) {
      const db = new Database(':memory:', { commitRows });
      db.migrate({ domain: 'd', migrations: [v1] });
      for (let i = 0; i < 100; i++) db.write('INSERT INTO t(a) VALUES (?)', [`r${i}`]);
      db.flushWrites();
      // The default bound, 64 rows per transaction: 100 rows in 2.
      expect(db.writeStats).toEqual({ rows: 100, batches: 2, failedBatches: 0 });
      db.close();
    }
  });

  it('keeps the good rows of a batch that holds a bad one, and reports the bad one instead of throwing', () => {
    const errors: [string, number][] = [];
    const db = new Database(':memory:', { onWriteError: (e, n) => errors.push([e.message, n]) });
    db.migrate({ domain: 'd', migrations: [v1] });
    db.db.exec('CREATE TABLE u (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    db.write('INSERT INTO u(v) VALUES (?)', ['good']);
    db.write('INSERT INTO u(v) VALUES (?)', [null]);
    db.write('INSERT INTO u(v) VALUES (?)', ['also good']);
    expect(() => db.flushWrites()).not.toThrow();
    expect(db.db.prepare('SELECT v FROM u ORDER BY id').all()).toEqual([{ v: 'good' }, { v: 'also good' }]);
    expect(errors).toHaveLength(1);
    expect(errors[0]![0]).toMatch(/NOT NULL/);
    expect(errors[0]![1]).toBe(1);
    expect(db.writeStats.failedBatches).toBe(1);
    // A statement that cannot even be prepared throws at the caller: that is a programming error.
    expect(() => db.write('INSERT INTO missing VALUES (?)', [1])).toThrow(/no such table/);
    db.close();
  });
  // docs/reliability.md "What a kill -9 can lose" promises at most 250 ms (or 256 rows) of request
  // rows: the window of the database as the runtime opens it. Another connection (what survives a
  // kill -9: the file) sees nothing before the window ends and every row once it has.
  it('as the engine opens it, commits queued rows within 250 ms or at 256 rows (64 per transaction, the rest on the next turns): the kill -9 loss window', () => {
    vi.useFakeTimers();
    const path = join(mkdtempSync(join(tmpdir(), 'engy-db-')), 'x.sqlite');
    const { db } = openDatabase(path);
    const onDisk = new DatabaseSync(path, { readOnly: true });
    try {
      db.migrate({ domain: 'd', migrations: [v1] });
      const committed = () => (onDisk.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n;
      for (let i = 0; i < 10; i++) db.write('INSERT INTO t(a) VALUES (?)', [`r${i}`]);
      vi.advanceTimersByTime(249);
      expect(committed()).toBe(0);
      vi.advanceTimersByTime(1);
      expect(committed()).toBe(10);
      for (let i = 0; i < 256; i++) db.write('INSERT INTO t(a) VALUES (?)', [`b${i}`]);
      // The 256th row starts the commit on the writer's path, one bounded transaction of 64 rows...
      expect(committed()).toBe(10 + 64);
      // ...and the other 192 follow on the next turns of the loop, not at the 250 ms timer.
      for (const expected of [138, 202, 266]) {
        vi.runOnlyPendingTimers();
        expect(committed()).toBe(expected);
      }
    } finally {
      onDisk.close();
      db.close();
      vi.useRealTimers();
    }
  });
});
