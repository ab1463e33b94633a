// A history database that fills up mid-run (simulated with SQLite's page cap, which fails exactly as a full
// disk does: SQLITE_FULL): serving goes on, one alert says what happened and what to do, the log says it
// at most once a minute, and the alert clears once writes have stopped failing.
import { describe, expect, it } from 'vitest';
import { Database } from '../../../electron/engine/store/database.ts';
import { NotificationService } from '../../../electron/engine/notify/notification-service.ts';
import { NotificationStore } from '../../../electron/engine/notify/notification-store.ts';
import { storageCause, StorageWatch, watchStorage } from '../../../electron/engine/notify/storage-watch.ts';
import { silentLogger, type Logger } from '../../../electron/engine/lib/logger.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';
import { join } from 'node:path';

const fresh = tempDirs('engy-storage-');

describe('storage watch', () => {
  it('says why a write failed in words about the folder', () => {
    expect(storageCause(new Error('database or disk is full'))).toBe('the disk holding the data dir is full');
    expect(storageCause(new Error('attempt to write a readonly database'))).toMatch(/can no longer be written/);
    expect(storageCause(new Error('database is locked'))).toMatch(/keeps the database locked/);
    expect(storageCause(new Error('no such table: x'))).toBe('SQLite refused the write (no such table: x)');
  });

  it('keeps one alert with a stable text while failures go on, and clears it after a quiet spell', () => {
    const w = new StorageWatch('/data', 1000);
    expect(w.alerts(0)).toEqual([]);
    w.failed(new Error('database or disk is full'), 3, 10);
    const first = w.alerts(10);
    w.failed(new Error('database or disk is full'), 5, 500);
    expect(w.alerts(500)).toEqual(first);
    expect(w.lost).toBe(8);
    expect(first[0]).toMatchObject({ key: 'db-write', kind: 'storage-failing', severity: 'error', title: 'History is not being saved' });
    expect(first[0]!.body).toBe(
      'Served requests and audits are not being recorded: the disk holding the data dir is full (/data). Free space there or fix the folder; saving resumes on its own. Serving and earning are not affected.',
    );
    expect(w.alerts(1499)).toHaveLength(1);
    expect(w.alerts(1501)).toEqual([]);
    expect(w.lost).toBe(0);
  });

  it('turns a full database into one alert and a rate-limited log line, without a write loop', async () => {
    const dir = fresh();
    const db = new Database(join(dir, 'engy-panel.sqlite'), { batchMs: 5 });
    db.db.exec('CREATE TABLE filler (b BLOB)');
    const notifications = new NotificationService(() => [], Date.now, new NotificationStore(db));
    const lines: string[] = [];
    const log: Logger = { ...silentLogger, error: (m: string) => void lines.push(m) };
    const watch = watchStorage(db, notifications, log, dir, { checkMs: 20, quietMs: 300 });
    let failures = 0;
    const counting = db.onDidFailWrite(() => void failures++);
    try {
      // Cap the file at its current size: the next pages cannot be allocated, as on a full disk.
      const pages = (db.db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
      db.db.exec(`PRAGMA max_page_count = ${pages}`);
      for (let i = 0; i < 20; i++) db.write('INSERT INTO filler (b) VALUES (?)', [new Uint8Array(8192)]);
      await expect.poll(() => notifications.snapshot().recent.filter((n) => n.kind === 'storage-failing' && n.active), { timeout: 20_000 }).toHaveLength(1);
      const alert = notifications.snapshot().recent.find((n) => n.kind === 'storage-failing')!;
      expect(alert.body).toContain(`the disk holding the data dir is full (${dir})`);
      expect(alert.action).toEqual({ page: 'logs', label: 'Open Logs' });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^history: \d+ record\(s\) not saved so far: the disk holding the data dir is full \(database or disk is full\)$/);
      // The alert's own row fails too; a stable text means it is not rewritten, so failures stop.
      const settled = failures;
      await new Promise((r) => setTimeout(r, 100));
      expect(failures - settled).toBeLessThanOrEqual(1);
      // Room again: no more failures, and the alert clears on its own.
      db.db.exec('PRAGMA max_page_count = 1073741823');
      db.write('INSERT INTO filler (b) VALUES (?)', [new Uint8Array(16)]);
      await expect.poll(() => notifications.snapshot().recent.find((n) => n.kind === 'storage-failing')?.active, { timeout: 3000 }).toBe(false);
      expect((db.db.prepare('SELECT COUNT(*) AS n FROM filler').get() as { n: number }).n).toBeGreaterThanOrEqual(1);
    } finally {
      await counting.dispose();
      await watch.dispose();
      db.close();
    }
  });
});
