import { DatabaseSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
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
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new DatabaseSync(path);
    this.db.exec('PRAGMA journal_mode = WAL');
    this.db.exec('PRAGMA synchronous = NORMAL');
    this.db.exec('PRAGMA foreign_keys = ON');
    this.db.exec('PRAGMA busy_timeout = 5000');
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_versions (domain TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at INTEGER NOT NULL)');
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

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}
