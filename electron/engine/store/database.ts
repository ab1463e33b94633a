import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { chmodSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppFailure, errorMessage } from '../../../shared/errors.ts';
import { Emitter } from '../lib/emitter.ts';
import { threadSlices } from '../lib/thread-slices.ts';

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

export interface DatabaseOptions {
  /** Queued writes wait at most this long before one transaction commits them (default 250 ms). */
  batchMs?: number;
  /** ...or until this many are queued (default 256). */
  batchRows?: number;
  /**
   * Rows per transaction (default 64): a batch larger than this commits in several transactions,
   * and off a reader's path the engine thread gets a turn between them, so one commit stays one
   * short slice of the thread however many rows a burst queued.
   */
  commitRows?: number;
  /** A batch that failed to commit (disk full, locked): told here, never thrown at the writer. */
  onWriteError?: (e: Error, rows: number) => void;
}

/** A usable rows-per-transaction bound from an option (a count >= 1; anything else is the default). */
function rowBound(n: number | undefined): number {
  return typeof n === 'number' && Number.isFinite(n) && n >= 1 ? Math.floor(n) : 64;
}

/** Databases with queued writes, so one exit hook commits them all when the process ends. */
const pending = new Set<Database>();
let exitHooked = false;

export class Database {
  private readonly raw: DatabaseSync;
  readonly path: string;
  private queue: { stmt: StatementSync; params: SQLInputValue[] }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly statements = new Map<string, StatementSync>();
  private readonly opts: Required<Omit<DatabaseOptions, 'onWriteError'>> & Pick<DatabaseOptions, 'onWriteError'>;
  /** Rows committed in batches and batches that failed, for the bench and diagnostics. */
  readonly writeStats = { rows: 0, batches: 0, failedBatches: 0 };
  private readonly writeFailures = new Emitter<{ error: Error; rows: number }>();
  /** Queued rows that could not be written (disk full, read-only, locked): the engine alerts on it. */
  readonly onDidFailWrite = this.writeFailures.event;

  constructor(path: string, opts: DatabaseOptions = {}) {
    this.path = path;
    this.opts = { batchMs: 250, batchRows: 256, ...opts, commitRows: rowBound(opts.commitRows) };
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.raw = new DatabaseSync(path);
    // Request history and validator submissions are the operator's business: owner-only, set before
    // WAL mode so the -wal and -shm files SQLite creates inherit the same mode.
    try {
      if (path !== ':memory:') chmodSync(path, 0o600);
      this.raw.exec('PRAGMA journal_mode = WAL');
      this.raw.exec('PRAGMA synchronous = NORMAL');
      this.raw.exec('PRAGMA foreign_keys = ON');
      this.raw.exec('PRAGMA busy_timeout = 5000');
      this.raw.exec('CREATE TABLE IF NOT EXISTS schema_versions (domain TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at INTEGER NOT NULL)');
    } catch (e) {
      this.raw.close();
      throw e;
    }
  }

  /**
   * The connection, for reads and one-off writes. Queued writes are committed first, so a reader
   * always sees every row written before it asked.
   */
  get db(): DatabaseSync {
    this.flushWrites();
    return this.raw;
  }

  /**
   * Queue a write (an INSERT per served request, an audit row): queued writes are committed
   * together in one transaction per batch, off the request's path, instead of one synchronous
   * commit each on the engine thread.
   */
  write(sql: string, params: SQLInputValue[]): void {
    if (!this.raw.isOpen) return;
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.raw.prepare(sql);
      this.statements.set(sql, stmt);
    }
    this.queue.push({ stmt, params });
    pending.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', () => {
        for (const d of pending) d.flushWrites();
      });
    }
    if (this.queue.length >= this.opts.batchRows) this.commitSlice();
    else if (!this.timer) this.schedule(this.opts.batchMs);
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => this.commitSlice(), ms);
    this.timer.unref?.();
  }

  /** One transaction of at most `commitRows` rows; the rest after the loop has had a turn. */
  private commitSlice(): void {
    threadSlices.run('DB batch', () => this.commitQueued(this.opts.commitRows));
    if (this.queue.length > 0 && !this.timer && this.raw.isOpen) this.schedule(0);
  }

  /**
   * A row that must land now, not in the next batch (a validator's tick or weight submission, which a
   * kill -9 must not lose): committed at once, after the queued ones. A failure (a full disk) is reported
   * as a queued row's is, on onDidFailWrite, never thrown: the caller's loop goes on. Returns the row id,
   * or null when the row was not written.
   */
  writeNow(sql: string, params: SQLInputValue[]): number | null {
    if (!this.raw.isOpen) return null;
    this.flushWrites();
    try {
      const r = this.raw.prepare(sql).run(...params);
      this.writeStats.rows++;
      return Number(r.lastInsertRowid);
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      this.opts.onWriteError?.(error, 1);
      this.writeFailures.fire({ error, rows: 1 });
      return null;
    }
  }

  /** Commit every queued write now (a reader, a row that must land, the exit), `commitRows` per transaction. */
  flushWrites(): void {
    do threadSlices.run('DB batch', () => this.commitQueued(this.opts.commitRows));
    while (this.queue.length > 0 && this.raw.isOpen);
  }

  private commitQueued(limit: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0 || !this.raw.isOpen) {
      pending.delete(this);
      return;
    }
    const batch = this.queue.length <= limit ? this.queue : this.queue.splice(0, limit);
    if (batch === this.queue) this.queue = [];
    if (this.queue.length === 0) pending.delete(this);
    try {
      this.raw.exec('BEGIN IMMEDIATE');
      try {
        for (const w of batch) w.stmt.run(...w.params);
        this.raw.exec('COMMIT');
      } catch (e) {
        this.raw.exec('ROLLBACK');
        throw e;
      }
      this.writeStats.rows += batch.length;
      this.writeStats.batches++;
    } catch {
      // One bad row (or a busy moment) must not lose its neighbours: retry each on its own.
      this.writeStats.failedBatches++;
      let failed = 0;
      let last: unknown = null;
      for (const w of batch) {
        try {
          w.stmt.run(...w.params);
          this.writeStats.rows++;
        } catch (e) {
          failed++;
          last = e;
        }
      }
      if (failed > 0) {
        const error = last instanceof Error ? last : new Error(String(last));
        this.opts.onWriteError?.(error, failed);
        this.writeFailures.fire({ error, rows: failed });
      }
    }
  }

  version(domain: string): number {
    const row = this.raw.prepare('SELECT version FROM schema_versions WHERE domain = ?').get(domain) as { version: number } | undefined;
    return row?.version ?? 0;
  }

  migrate(set: DomainMigrations): number {
    const sorted = [...set.migrations].sort((a, b) => a.version - b.version);
    sorted.forEach((m, i) => {
      if (m.version !== i + 1) throw new Error(`migrations for ${set.domain} must be numbered 1..n without gaps (found ${m.version} at ${i + 1})`);
    });
    const current = this.version(set.domain);
    if (current > sorted.length) {
      throw new Error(`The ${set.domain} data was written by a newer engy panel (schema ${current}, this build knows ${sorted.length}). Update the app; migrations only run forward.`);
    }
    this.flushWrites();
    for (const m of sorted.slice(current)) {
      this.raw.exec('BEGIN IMMEDIATE');
      try {
        m.up(this.raw);
        this.raw
          .prepare('INSERT INTO schema_versions(domain, version, applied_at) VALUES (?, ?, ?) ON CONFLICT(domain) DO UPDATE SET version = excluded.version, applied_at = excluded.applied_at')
          .run(set.domain, m.version, Date.now());
        this.raw.exec('COMMIT');
      } catch (e) {
        // SQLite has already rolled back after some failures (a full disk): a second ROLLBACK would
        // throw "no transaction is active" and hide the real cause.
        if (this.raw.isTransaction) this.raw.exec('ROLLBACK');
        throw e;
      }
    }
    this.checkShape(set);
    return this.version(set.domain);
  }

  private readonly shapeChecked = new Set<string>();

  /**
   * The domain's tables as its migrations make them, compared with the file's: a table or column
   * changed under us (by hand, by another program) is a sentence now, not "no such column" later.
   */
  private checkShape(set: DomainMigrations): void {
    if (this.shapeChecked.has(set.domain) || this.path === ':memory:') return;
    const model = new DatabaseSync(':memory:');
    try {
      for (const m of [...set.migrations].sort((a, b) => a.version - b.version)) m.up(model);
      const tables = model.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>;
      for (const { name } of tables) {
        const want = (model.prepare('SELECT name FROM pragma_table_info(?)').all(name) as Array<{ name: string }>).map((c) => c.name);
        const have = new Set((this.raw.prepare('SELECT name FROM pragma_table_info(?)').all(name) as Array<{ name: string }>).map((c) => c.name));
        const missing = have.size === 0 ? 'is missing' : want.filter((c) => !have.has(c)).map((c) => `has no column ${c}`)[0];
        if (missing) {
          throw new AppFailure(
            'internal',
            `The history database ${this.path} is damaged: its table ${name} ${missing} (changed by another program or by hand). Stop the engine, move the file aside (mv ${this.path} ${this.path}.old) and start again: a fresh one is made.`,
          );
        }
      }
    } finally {
      model.close();
    }
    this.shapeChecked.add(set.domain);
  }

  /** Reads every page's structure (PRAGMA quick_check): a truncated or overwritten file fails here, not in the middle of a request. */
  check(): string | null {
    const rows = this.raw.prepare('PRAGMA quick_check').all() as { quick_check?: string }[];
    const problems = rows.map((r) => r.quick_check ?? '').filter((t) => t !== 'ok');
    return problems.length === 0 ? null : problems.slice(0, 3).join('; ');
  }

  close(): void {
    this.flushWrites();
    if (this.raw.isOpen) this.raw.close();
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
    return { db: new Database(path), recovered: { movedTo, reason: errorMessage(e) } };
  }
}

/** A domain whose schema is still its first version: one migration running these statements. */
export function firstSchema(domain: string, description: string, ...statements: string[]): DomainMigrations {
  return { domain, migrations: [{ version: 1, description, up: (db) => statements.forEach((sql) => db.exec(sql)) }] };
}
