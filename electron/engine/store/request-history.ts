import type { MinerRequestRecord, RequestOutcome, SelfAuditRecord } from '../../../shared/miner.ts';
import { MINER_MIGRATIONS } from './miner-tables.ts';
import type { Database } from './database.ts';

interface Row {
  corr_id: string;
  request_id: string;
  leg: number;
  engine: string;
  stream: number;
  received_at: number;
  ttft_ms: number | null;
  tpot_ms: number | null;
  e2e_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  proof_ms: number | null;
  outcome: string;
  finish_reason: string | null;
  cause: string | null;
}

export interface RequestFilter {
  outcome?: RequestOutcome;
  /** Received at or after (ms). */
  since?: number;
  /** Received before (ms). */
  until?: number;
}

function whereOf(f: RequestFilter): { sql: string; params: (string | number)[] } {
  const parts: string[] = [];
  const params: (string | number)[] = [];
  const add = (sql: string, v: string | number) => {
    parts.push(sql);
    params.push(v);
  };
  if (f.outcome) add('outcome = ?', f.outcome);
  if (f.since !== undefined) add('received_at >= ?', f.since);
  if (f.until !== undefined) add('received_at < ?', f.until);
  return { sql: parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '', params };
}

/** How many requests match the filter: the History pager's total. */
export function countRequestHistory(db: Database, f: RequestFilter = {}): { total: number } {
  db.migrate(MINER_MIGRATIONS);
  const w = whereOf(f);
  const r = db.db.prepare(`SELECT COUNT(*) AS n FROM miner_requests ${w.sql}`).get(...w.params) as { n: number };
  return { total: r.n };
}

/** The local request history (metadata only), newest first, for the History page and its CSV export. */
export function queryRequestHistory(db: Database, opts: RequestFilter & { limit?: number; offset?: number } = {}): MinerRequestRecord[] {
  db.migrate(MINER_MIGRATIONS);
  const w = whereOf(opts);
  const rows = db.db.prepare(`SELECT * FROM miner_requests ${w.sql} ORDER BY received_at DESC, id DESC LIMIT ? OFFSET ?`).all(...w.params, opts.limit ?? 1000, opts.offset ?? 0) as unknown as Row[];
  return rows.map((r) => ({
    corrId: r.corr_id,
    requestId: r.request_id,
    leg: r.leg,
    engine: r.engine,
    stream: r.stream === 1,
    receivedAt: r.received_at,
    ttftMs: r.ttft_ms,
    tpotMs: r.tpot_ms,
    e2eMs: r.e2e_ms,
    promptTokens: r.prompt_tokens,
    completionTokens: r.completion_tokens,
    cachedTokens: r.cached_tokens,
    proofMs: r.proof_ms,
    outcome: r.outcome as RequestOutcome,
    finishReason: r.finish_reason,
    cause: r.cause,
  }));
}

/** Self-audit results, newest first: the mismatch score the auditor would have seen per sampled request. */
export function querySelfAudits(db: Database, limit = 500): SelfAuditRecord[] {
  db.migrate(MINER_MIGRATIONS);
  const rows = db.db.prepare('SELECT at, request_id, score, chunks, error FROM miner_audits ORDER BY at DESC, id DESC LIMIT ?').all(limit) as Array<{
    at: number;
    request_id: string;
    score: number | null;
    chunks: number;
    error: string | null;
  }>;
  return rows.map((r) => ({ at: r.at, requestId: r.request_id, score: r.score, chunks: r.chunks, error: r.error }));
}
