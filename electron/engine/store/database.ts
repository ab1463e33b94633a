import { DatabaseSync } from 'node:sqlite';
import { chmodSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Migrations are numbered per domain (`miner`, `validator`, `serve`...), so each engine owns its
 * tables and their history. They run forward only, each in a transaction, and the applied
 * version is recorded per domain: an upgrade opens any older database and brings it forward.
 */
export interface Migration {
  version: number;
  description: string;
  up: (db: DatabaseSync) => void;
}

export interface DomainMigrations {
  domain: string;
  migrations: Migration[];
}

export class Database {
  readonly db: DatabaseSync;
  readonly path: string;
  constructor(path: string) {
    this.path = path;
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.db = new DatabaseSync(path);
    // Request history and validator submissions are the operator's business: owner-only, set before
    // WAL mode so the -wal and -shm files SQLite creates inherit the same mode.
    try {
      if (path !== ':memory:') chmodSync(path, 0o600);
      this.db.exec('PRAGMA journal_mode = WAL');
      this.db.exec('PRAGMA synchronous = NORMAL');
      this.db.exec('PRAGMA foreign_keys = ON');
      this.db.exec('PRAGMA busy_timeout = 5000');
      this.db.exec('CREATE TABLE IF NOT EXISTS schema_versions (domain TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at INTEGER NOT NULL)');
    } catch (e) {
      this.db.close();
      throw e;
    }
  }

  version(domain: string): number {
    const row = this.db.prepare('SELECT version FROM schema_versions WHERE domain = ?').get(domain) as { version: number } | undefined;
    return row?.version ?? 0;
  }

  migrate(set: DomainMigrations): number {
    const sorted = [...set.migrations].sort((a, b) => a.version - b.version);
    sorted.forEach((m, i) => {
      if (m.version !== i + 1) throw new Error(`migrations for ${set.domain} must be numbered 1..n without gaps (found ${m.version} at ${i + 1})`);
    });
    const current = this.version(set.domain);
    if (current > sorted.length) {
      throw new Error(
        `The ${set.domain} data was written by a newer engy panel (schema ${current}, this build knows ${sorted.length}). Update the app; migrations only run forward.`,
      );
    }
    for (const m of sorted.slice(current)) {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        m.up(this.db);
        this.db
          .prepare('INSERT INTO schema_versions(domain, version, applied_at) VALUES (?, ?, ?) ON CONFLICT(domain) DO UPDATE SET version = excluded.version, applied_at = excluded.applied_at')
          .run(set.domain, m.version, Date.now());
        this.db.exec('COMMIT');
      } catch (e) {
        this.db.exec('ROLLBACK');
        throw e;
      }
    }
    return this.version(set.domain);
  }

  /** Reads every page's structure (PRAGMA quick_check): a truncated or overwritten file fails here, not in the middle of a request. */
  check(): string | null {
    const rows = this.db.prepare('PRAGMA quick_check').all() as { quick_check?: string }[];
    const problems = rows.map((r) => r.quick_check ?? '').filter((t) => t !== 'ok');
    return problems.length === 0 ? null : problems.slice(0, 3).join('; ');
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

/** What `openDatabase` did with a file it could not use. */
export interface DatabaseRecovery {
  /** Where the unusable file now lives. */
  movedTo: string;
  /** SQLite's reason, for the log and the notification. */
  reason: string;
}

// SQLite's primary result codes for a file that is not (or no longer) a database it can read.
const SQLITE_CORRUPT = 11;
const SQLITE_CANTOPEN = 14;
const SQLITE_NOTADB = 26;

function isUnusableDatabase(e: unknown, path: string): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, errcode } = e as { code?: unknown; errcode?: unknown };
  if (code !== 'ERR_SQLITE_ERROR' || typeof errcode !== 'number') return false;
  const primary = errcode & 0xff;
  // CANTOPEN only when the file is there (unreadable): a missing folder is not the file's fault.
  return primary === SQLITE_CORRUPT || primary === SQLITE_NOTADB || (primary === SQLITE_CANTOPEN && existsSync(path));
}

class CorruptDatabase extends Error {}

/**
 * Opens the engine's database; a file SQLite cannot use (truncated, overwritten, unreadable) is moved
 * aside as `<name>.corrupt-<time>` with its -wal/-shm, and a fresh one is started, so a damaged history
 * never stops the engine. Any other failure (a read-only folder, a full disk) is thrown.
 */
export function openDatabase(path: string, now: () => number = Date.now): { db: Database; recovered: DatabaseRecovery | null } {
  let db: Database | null = null;
  try {
    db = new Database(path);
    const problem = db.check();
    if (problem) throw new CorruptDatabase(problem);
    return { db, recovered: null };
  } catch (e) {
    db?.close();
    if (!(e instanceof CorruptDatabase) && !isUnusableDatabase(e, path)) throw e;
    const movedTo = `${path}.corrupt-${new Date(now()).toISOString().replace(/[:.]/g, '-')}`;
    renameSync(path, movedTo);
    for (const side of ['-wal', '-shm']) {
      if (existsSync(path + side)) renameSync(path + side, movedTo + side);
    }
    return { db: new Database(path), recovered: { movedTo, reason: e instanceof Error ? e.message : String(e) } };
  }
}
