// Every tick and every submission, kept in SQLite (domain 'validator') so the UI and an operator can
// see what the loop decided and what the chain answered, across restarts.
import type { Database, DomainMigrations } from '../store/database.ts';
import type { SubmissionKind, SubmissionRecord, TickOutcome, TickRecord } from '../../../shared/validator.ts';

export const VALIDATOR_MIGRATIONS: DomainMigrations = {
  domain: 'validator',
  migrations: [
    {
      version: 1,
      description: 'validator ticks and weight submissions',
      up: (db) => {
        db.exec(`CREATE TABLE validator_ticks (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          at INTEGER NOT NULL,
          outcome TEXT NOT NULL,
          epoch_index INTEGER,
          block INTEGER,
          detail TEXT NOT NULL
        )`);
        db.exec('CREATE INDEX validator_ticks_at ON validator_ticks(at)');
        db.exec(`CREATE TABLE validator_submissions (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          at INTEGER NOT NULL,
          kind TEXT NOT NULL,
          epoch_index INTEGER NOT NULL,
          digest TEXT,
          block INTEGER,
          uids TEXT NOT NULL,
          weights TEXT NOT NULL,
          dropped_share REAL NOT NULL,
          ok INTEGER NOT NULL,
          extrinsic_hash TEXT,
          included_block INTEGER,
          error_code TEXT,
          error TEXT
        )`);
        db.exec('CREATE INDEX validator_submissions_at ON validator_submissions(at)');
      },
    },
  ],
};

const KEEP_TICKS = 50_000;

export interface ValidatorHistory {
  recordTick(t: TickRecord): void;
  recordSubmission(s: SubmissionRecord): void;
  recentTicks(limit: number): TickRecord[];
  recentSubmissions(limit: number): SubmissionRecord[];
}

/** SQLite-backed history; the caller owns the Database and closes it. */
export class SqliteValidatorHistory implements ValidatorHistory {
  private readonly database: Database;
  constructor(database: Database) {
    this.database = database;
    database.migrate(VALIDATOR_MIGRATIONS);
  }

  // Written at once (a kill -9 loses none), and a write that fails (a full disk) is said by the engine's
  // storage watch rather than thrown into the tick loop, which would stop the heartbeat too.
  recordTick(t: TickRecord): void {
    const id = this.database.writeNow('INSERT INTO validator_ticks(at, outcome, epoch_index, block, detail) VALUES (?, ?, ?, ?, ?)', [t.at, t.outcome, t.epochIndex, t.block, t.detail]);
    // A tick every 5 min is ~100k rows a year: keep the recent ones (submissions are few and all kept).
    if (id !== null && id % 1000 === 0) this.database.writeNow('DELETE FROM validator_ticks WHERE id <= ?', [id - KEEP_TICKS]);
  }

  recordSubmission(s: SubmissionRecord): void {
    this.database.writeNow(
      `INSERT INTO validator_submissions(at, kind, epoch_index, digest, block, uids, weights, dropped_share, ok, extrinsic_hash, included_block, error_code, error)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [s.at, s.kind, s.epochIndex, s.digest, s.block, JSON.stringify(s.uids), JSON.stringify(s.weights), s.droppedShare, s.ok ? 1 : 0, s.extrinsicHash, s.includedBlock, s.errorCode, s.error],
    );
  }

  recentTicks(limit: number): TickRecord[] {
    const rows = this.database.db.prepare('SELECT at, outcome, epoch_index, block, detail FROM validator_ticks ORDER BY id DESC LIMIT ?').all(limit) as Array<{
      at: number;
      outcome: string;
      epoch_index: number | null;
      block: number | null;
      detail: string;
    }>;
    return rows.map((r) => ({ at: r.at, outcome: r.outcome as TickOutcome, epochIndex: r.epoch_index, block: r.block, detail: r.detail }));
  }

  recentSubmissions(limit: number): SubmissionRecord[] {
    const rows = this.database.db.prepare('SELECT * FROM validator_submissions ORDER BY id DESC LIMIT ?').all(limit) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      at: Number(r.at),
      kind: String(r.kind) as SubmissionKind,
      epochIndex: Number(r.epoch_index),
      digest: (r.digest as string | null) ?? null,
      block: r.block === null ? null : Number(r.block),
      uids: JSON.parse(String(r.uids)) as number[],
      weights: JSON.parse(String(r.weights)) as number[],
      droppedShare: Number(r.dropped_share),
      ok: Number(r.ok) === 1,
      extrinsicHash: (r.extrinsic_hash as string | null) ?? null,
      includedBlock: r.included_block === null ? null : Number(r.included_block),
      errorCode: (r.error_code as string | null) ?? null,
      error: (r.error as string | null) ?? null,
    }));
  }
}

/** In-memory history for one-shot uses and tests that do not care about persistence. */
export class MemoryValidatorHistory implements ValidatorHistory {
  private readonly ticks: TickRecord[] = [];
  private readonly subs: SubmissionRecord[] = [];
  recordTick(t: TickRecord): void {
    this.ticks.push(t);
    if (this.ticks.length > 500) this.ticks.shift();
  }
  recordSubmission(s: SubmissionRecord): void {
    this.subs.push(s);
    if (this.subs.length > 500) this.subs.shift();
  }
  recentTicks(limit: number): TickRecord[] {
    return this.ticks.slice(-limit).reverse();
  }
  recentSubmissions(limit: number): SubmissionRecord[] {
    return this.subs.slice(-limit).reverse();
  }
}
