// The Alerts history survives a restart: kept in SQLite, ongoing alerts closed as interrupted, ids
// continuing, the newest 200 kept, and rows that are not a notification skipped instead of shown.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Alert } from '../../../electron/engine/notify/alert-rules.ts';
import { NotificationService } from '../../../electron/engine/notify/notification-service.ts';
import { NotificationStore } from '../../../electron/engine/notify/notification-store.ts';
import { Database } from '../../../electron/engine/store/database.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';

const temp = tempDirs('engy-notif-');
const dbPath = () => join(temp(), 'engy-panel.sqlite');
const crash = (key: string, body: string): Alert => ({ key, kind: 'serve-crashed', severity: 'error', title: `Engine ${key} crashed`, body });

describe('notification store', () => {
  it('keeps the history across a restart, closes what was ongoing as interrupted, and numbers on', () => {
    const path = dbPath();
    let now = 1_000;
    const db1 = new Database(path);
    const first = new NotificationService(
      () => [],
      () => now,
      new NotificationStore(db1),
    );
    first.update('serve', [crash('0', 'restart 1 of 5'), crash('1', 'restart 1 of 5')]);
    now = 2_000;
    first.update('serve', [crash('0', 'restart 2 of 5')]); // engine 1 recovered, engine 0 still failing
    db1.close();

    now = 9_000;
    const db2 = new Database(path);
    const second = new NotificationService(
      () => [],
      () => now,
      new NotificationStore(db2),
    );
    const recent = second.snapshot().recent;
    expect(recent).toHaveLength(2);
    const e0 = recent.find((n) => n.title === 'Engine 0 crashed')!;
    const e1 = recent.find((n) => n.title === 'Engine 1 crashed')!;
    expect(e0).toMatchObject({ active: false, endedAt: null, interruptedAt: 9_000, body: 'restart 2 of 5', updatedAt: 2_000 });
    expect(e1).toMatchObject({ active: false, endedAt: 2_000 });
    expect(e1.interruptedAt).toBeUndefined();
    // Still failing after the restart: a new alert, with a new id.
    second.update('serve', [crash('0', 'restart 1 of 5')]);
    const fresh = second.snapshot().recent[0]!;
    expect(fresh.active).toBe(true);
    expect(fresh.id).toBeGreaterThan(Math.max(e0.id, e1.id));
    db2.close();

    // The interrupted mark itself was written: a third start sees it unchanged.
    const db3 = new Database(path);
    const third = new NotificationService(
      () => [],
      () => 20_000,
      new NotificationStore(db3),
    );
    expect(third.snapshot().recent.find((n) => n.id === e0.id)).toMatchObject({ interruptedAt: 9_000 });
    expect(third.snapshot().recent).toHaveLength(3);
    db3.close();
  });

  it('keeps the newest 200', () => {
    const path = dbPath();
    const db = new Database(path);
    let now = 0;
    const svc = new NotificationService(
      () => [],
      () => now,
      new NotificationStore(db),
    );
    for (let i = 0; i < 250; i++) {
      now = i * 10;
      svc.update('serve', [crash(String(i), 'down')]);
      svc.update('serve', []);
    }
    db.close();
    const again = new Database(path);
    const svc2 = new NotificationService(
      () => [],
      () => 5_000,
      new NotificationStore(again),
    );
    expect(svc2.snapshot().recent).toHaveLength(200);
    expect(svc2.snapshot().recent[0]!.title).toBe('Engine 249 crashed');
    expect((again.db.prepare('SELECT COUNT(*) AS n FROM notifications').get() as { n: number }).n).toBe(200);
    again.close();
  });

  it('skips rows that are not a notification: garbage, wrong types, unknown kinds, prototype keys, oversized text', () => {
    const db = new Database(':memory:');
    const store = new NotificationStore(db);
    const good = { id: 7, at: 1, updatedAt: 1, active: false, endedAt: 2, kind: 'serve-crashed', severity: 'error', title: 't', body: 'b', action: { page: 'mine', label: 'Open Mine' } };
    const bad: string[] = [
      'not json',
      'null',
      '[]',
      JSON.stringify({ ...good, id: 1, kind: 'rm -rf' }),
      JSON.stringify({ ...good, id: 2, at: '1' }),
      JSON.stringify({ ...good, id: 3, body: 'x'.repeat(100_000) }),
      JSON.stringify({ ...good, id: 4, action: { page: 'javascript:alert(1)', label: 'x' } }),
      `{"id":5,"at":1,"updatedAt":1,"active":false,"endedAt":null,"kind":"serve-crashed","severity":"error","title":"t","body":"b","action":null,"__proto__":{"active":true}}`,
      JSON.stringify({ ...good, id: 6, constructor: 'x' }),
    ];
    bad.forEach((json, i) => db.db.prepare('INSERT INTO notifications (id, at, json) VALUES (?, ?, ?)').run(i + 1, 1, json));
    db.db.prepare('INSERT INTO notifications (id, at, json) VALUES (?, ?, ?)').run(good.id + 10, 1, JSON.stringify({ ...good, id: 17 }));
    const loaded = store.load(200);
    expect(loaded).toEqual([{ ...good, id: 17 }]);
    expect(Object.getPrototypeOf(loaded[0])).toBe(Object.prototype);
    db.close();
  });
});
