// Per-request metadata (never prompt or completion) kept in the miner's tables, plus an
// in-memory window the stats are computed from.
import type { MinerRequestRecord } from '../../../shared/miner.ts';
import type { Database, DomainMigrations } from '../store/database.ts';

/** A UTC day, the daily totals' unit. */
export const DAY_MS = 86_400_000;

export const MINER_MIGRATIONS: DomainMigrations = {
  domain: 'miner',
  migrations: [
    {
      version: 1,
      description: 'request records',
      up: (db) => {
        db.exec(`CREATE TABLE miner_requests (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          corr_id TEXT NOT NULL, request_id TEXT NOT NULL, leg INTEGER NOT NULL, engine TEXT NOT NULL,
          stream INTEGER NOT NULL, received_at INTEGER NOT NULL, ttft_ms REAL, tpot_ms REAL, e2e_ms REAL NOT NULL,
          prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, cached_tokens INTEGER NOT NULL,
          proof_ms REAL, outcome TEXT NOT NULL, finish_reason TEXT, cause TEXT)`);
        db.exec('CREATE INDEX miner_requests_received ON miner_requests(received_at)');
      },
    },
    {
      version: 2,
      description: 'self-audit results',
      up: (db) => {
        db.exec(`CREATE TABLE miner_audits (
          id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, request_id TEXT NOT NULL,
          score REAL, chunks INTEGER NOT NULL, error TEXT)`);
      },
    },
    {
      version: 3,
      description: 'daily totals of served requests (kept when old rows are pruned), the prune horizon',
      up: (db) => {
        db.exec(`CREATE TABLE miner_request_days (
          day INTEGER PRIMARY KEY, requests INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL)`);
        db.exec('CREATE TABLE miner_history_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)');
        db.exec('CREATE INDEX miner_audits_at ON miner_audits(at)');
        // Rows written before this schema: their totals, once (the day is the UTC day, in ms).
        db.exec(`INSERT INTO miner_request_days (day, requests, prompt_tokens, completion_tokens)
          SELECT CAST(received_at / ${DAY_MS} AS INTEGER) * ${DAY_MS}, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens)
          FROM miner_requests WHERE outcome = 'ok' GROUP BY 1`);
      },
    },
  ],
};

/** The daily totals every ok request adds to, in the same batch as its row (so the two never disagree). */
export const ADD_TO_DAY_SQL = `INSERT INTO miner_request_days (day, requests, prompt_tokens, completion_tokens) VALUES (?, 1, ?, ?)
  ON CONFLICT(day) DO UPDATE SET requests = requests + 1, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
  completion_tokens = completion_tokens + excluded.completion_tokens`;

/** The UTC day (its first ms) a time falls in. */
export function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export class RequestRecords {
  private readonly window: MinerRequestRecord[] = [];

  private readonly db: Database | null;
  private readonly keepMs: number;
  private readonly maxKept: number;

  constructor(db: Database | null, keepMs = 3_600_000, maxKept = 20_000) {
    this.db = db;
    this.keepMs = keepMs;
    this.maxKept = maxKept;
    db?.migrate(MINER_MIGRATIONS);
  }

  add(r: MinerRequestRecord, now: number): void {
    this.window.push(r);
    const cutoff = now - this.keepMs;
    let drop = 0;
    while (drop < this.window.length && (this.window[drop]!.receivedAt < cutoff || this.window.length - drop > this.maxKept)) drop++;
    if (drop > 0) this.window.splice(0, drop);
    // Queued: the database commits these in batches, off the request's path.
    this.db?.write(
      `INSERT INTO miner_requests (corr_id, request_id, leg, engine, stream, received_at, ttft_ms, tpot_ms, e2e_ms,
       prompt_tokens, completion_tokens, cached_tokens, proof_ms, outcome, finish_reason, cause)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [r.corrId, r.requestId, r.leg, r.engine, r.stream ? 1 : 0, r.receivedAt, r.ttftMs, r.tpotMs, r.e2eMs, r.promptTokens, r.completionTokens, r.cachedTokens, r.proofMs, r.outcome, r.finishReason, r.cause],
    );
    if (r.outcome === 'ok') this.db?.write(ADD_TO_DAY_SQL, [dayStart(r.receivedAt), r.promptTokens, r.completionTokens]);
  }

  addAudit(at: number, requestId: string, score: number | null, chunks: number, error: string | null): void {
    this.db?.write('INSERT INTO miner_audits (at, request_id, score, chunks, error) VALUES (?, ?, ?, ?, ?)', [at, requestId, score, chunks, error]);
  }

  all(): readonly MinerRequestRecord[] {
    return this.window;
  }

  since(t: number): MinerRequestRecord[] {
    return this.window.filter((r) => r.receivedAt >= t);
  }

  recent(n: number): MinerRequestRecord[] {
    return this.window.slice(-n).reverse();
  }
}
