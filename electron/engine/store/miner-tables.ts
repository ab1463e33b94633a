// The miner's tables (request rows, self-audits, daily totals) and the SQL that keeps the daily
// totals: the store owns them because its queries (request history, totals) read them, and the
// store sits below the domains (lint: electron/engine/store imports no domain).
import type { DomainMigrations } from './database.ts';

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
