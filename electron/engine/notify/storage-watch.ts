// The history database failing to save (a full disk on a rig left alone, a folder turned read-only): serving
// goes on, but the user must hear that records are being lost and what to do, once, not per row.
import type { Disposable } from '../lib/disposable.ts';
import type { Logger } from '../lib/logger.ts';
import type { Database } from '../store/database.ts';
import type { Alert } from './alert-rules.ts';
import type { NotificationService } from './notification-service.ts';

/** SQLite's words for why a write failed, as a sentence about the folder. */
export function storageCause(e: Error): string {
  const m = e.message;
  if (/disk is full|SQLITE_FULL|ENOSPC/i.test(m)) return 'the disk holding the data dir is full';
  if (/readonly|read-only|EROFS|EACCES|EPERM/i.test(m)) return 'the data dir can no longer be written (read-only or permissions changed)';
  if (/locked|busy/i.test(m)) return 'another program keeps the database locked';
  return `SQLite refused the write (${m})`;
}

/**
 * One ongoing alert while writes fail; it clears after `quietMs` without a failure. Its text stays the same
 * while the cause does (no running count): the alert's own row is written to the same failing database,
 * and a changing text would rewrite it on every failure.
 */
export class StorageWatch {
  private since: number | null = null;
  private last = 0;
  private lostRows = 0;
  private cause = '';
  private readonly dataDir: string;
  private readonly quietMs: number;

  constructor(dataDir: string, quietMs = 10 * 60_000) {
    this.dataDir = dataDir;
    this.quietMs = quietMs;
  }

  failed(error: Error, rows: number, now: number): void {
    this.since ??= now;
    this.last = now;
    this.lostRows += rows;
    this.cause = storageCause(error);
  }

  /** Rows lost since the alert began (for the log line). */
  get lost(): number {
    return this.lostRows;
  }

  alerts(now: number): Alert[] {
    if (this.since === null) return [];
    if (now - this.last > this.quietMs) {
      this.since = null;
      this.lostRows = 0;
      return [];
    }
    return [
      {
        key: 'db-write',
        kind: 'storage-failing',
        severity: 'error',
        title: 'History is not being saved',
        body: `Served requests and audits are not being recorded: ${this.cause} (${this.dataDir}). Free space there or fix the folder; saving resumes on its own. Serving and earning are not affected.`,
      },
    ];
  }
}

/** Wires a database's failed writes to the Alerts (source `storage`) and the log; re-checked every `checkMs` so the alert clears. */
export function watchStorage(
  db: Database,
  notifications: Pick<NotificationService, 'update'>,
  log: Logger,
  dataDir: string,
  o: { now?: () => number; checkMs?: number; quietMs?: number } = {},
): Disposable {
  const now = o.now ?? Date.now;
  const watch = new StorageWatch(dataDir, o.quietMs);
  let loggedAt = Number.NEGATIVE_INFINITY;
  let lineDue = false;
  const sub = db.onDidFailWrite(({ error, rows }) => {
    const t = now();
    watch.failed(error, rows, t);
    if (t - loggedAt >= 60_000 && !lineDue) {
      loggedAt = t;
      // One flush commits its queue in bounded transactions, each failing on its own: the line waits for
      // the end of this synchronous flush so it counts every record the flush lost, not the first slice.
      lineDue = true;
      queueMicrotask(() => {
        lineDue = false;
        log.error(`history: ${watch.lost} record(s) not saved so far: ${storageCause(error)} (${error.message})`);
      });
    }
    notifications.update('storage', watch.alerts(t));
  });
  const timer = setInterval(() => notifications.update('storage', watch.alerts(now())), o.checkMs ?? 60_000);
  timer.unref?.();
  return {
    dispose: () => {
      clearInterval(timer);
      return sub.dispose();
    },
  };
}
