// The Alerts page's history kept in SQLite (domain 'notifications'), so a restart (an update, a crash,
// a reboot of a rig left alone) does not wipe what happened while nobody watched. Rows are read back
// through one schema: a row someone edited, or one from a newer version, is skipped, never trusted.
import * as v from 'valibot';
import { NOTIFICATION_PAGES, type AppNotification } from '../../../shared/notifications.ts';
import { NOTIFICATION_KINDS } from '../../../shared/settings.ts';
import { firstSchema, type Database } from '../store/database.ts';

export const NOTIFICATION_MIGRATIONS = firstSchema(
  'notifications',
  'alert history: one row per notification, its latest state as JSON',
  'CREATE TABLE notifications (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, json TEXT NOT NULL)',
);

const instant = v.pipe(v.number(), v.integer(), v.minValue(0));
const text = (max: number) => v.pipe(v.string(), v.maxLength(max));

const StoredNotification = v.strictObject({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  at: instant,
  updatedAt: instant,
  active: v.boolean(),
  endedAt: v.nullable(instant),
  interruptedAt: v.optional(instant),
  seenAt: v.optional(instant),
  kind: v.picklist(NOTIFICATION_KINDS),
  severity: v.picklist(['warn', 'error']),
  title: text(500),
  body: text(4000),
  action: v.nullable(v.strictObject({ page: v.picklist(NOTIFICATION_PAGES), label: text(200) })),
});

export class NotificationStore {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
    db.migrate(NOTIFICATION_MIGRATIONS);
  }

  /** The newest `limit` notifications, newest first; unreadable rows are left out. */
  load(limit: number): AppNotification[] {
    const rows = this.db.db.prepare('SELECT json FROM notifications ORDER BY id DESC LIMIT ?').all(limit) as Array<{ json: string }>;
    const out: AppNotification[] = [];
    for (const r of rows) {
      let raw: unknown;
      try {
        raw = JSON.parse(r.json);
      } catch {
        continue;
      }
      const parsed = v.safeParse(StoredNotification, raw);
      if (parsed.success) out.push(parsed.output);
    }
    return out;
  }

  /** Writes a notification's latest state (queued with the engine's other writes). */
  save(n: AppNotification): void {
    this.db.write('INSERT OR REPLACE INTO notifications (id, at, json) VALUES (?, ?, ?)', [n.id, n.at, JSON.stringify(n)]);
  }

  /** Keeps the newest `keep` rows. */
  prune(keep: number): void {
    this.db.db.prepare('DELETE FROM notifications WHERE id NOT IN (SELECT id FROM notifications ORDER BY id DESC LIMIT ?)').run(keep);
  }
}
