// Per-request metadata (never prompt or completion) kept in the miner's tables, plus an
// in-memory window the stats are computed from.
import type { MinerRequestRecord } from '../../../shared/miner.ts';
import type { Database } from '../store/database.ts';
import { ADD_TO_DAY_SQL, dayStart, MINER_MIGRATIONS } from '../store/miner-tables.ts';

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
      [
        r.corrId,
        r.requestId,
        r.leg,
        r.engine,
        r.stream ? 1 : 0,
        r.receivedAt,
        r.ttftMs,
        r.tpotMs,
        r.e2eMs,
        r.promptTokens,
        r.completionTokens,
        r.cachedTokens,
        r.proofMs,
        r.outcome,
        r.finishReason,
        r.cause,
      ],
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
