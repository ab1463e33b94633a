// Verified epochs and chain reads kept in the database: totals over 7 days and all time survive a
// restart, and realised τ needs the reads taken while an epoch's weights applied.
import type { EpochEarnings } from '../../../shared/earnings.ts';
import { firstSchema, type Database } from '../store/database.ts';
import type { ChainRead } from './tau.ts';

export const EARNINGS_MIGRATIONS = firstSchema(
  'earnings',
  'verified epochs per hotkey, chain emission reads',
  'CREATE TABLE earnings_epochs (hotkey TEXT NOT NULL, epoch_index INTEGER NOT NULL, body TEXT NOT NULL, saved_at INTEGER NOT NULL, PRIMARY KEY (hotkey, epoch_index))',
  'CREATE TABLE earnings_chain_reads (hotkey TEXT NOT NULL, at INTEGER NOT NULL, alpha_per_sec REAL NOT NULL, pool_alpha_per_sec REAL, price_tao REAL NOT NULL)',
  'CREATE INDEX earnings_chain_reads_hotkey_at ON earnings_chain_reads (hotkey, at)',
);

/** What the signed result says about my hotkey; τ and tokens are derived at read time. */
export type StoredEpoch = Pick<EpochEarnings, 'epochIndex' | 'digest' | 'epochStart' | 'epochEnd' | 'weight' | 'weightShare' | 'gate' | 'row' | 'burn'>;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strOrNull = (v: unknown) => (typeof v === 'string' ? v : null);

/** A stored row is re-checked on read: a corrupt one is dropped, never trusted. */
export function parseStoredEpoch(text: string): StoredEpoch | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObj(v) || !Number.isSafeInteger(v.epochIndex) || typeof v.digest !== 'string' || typeof v.weight !== 'number' || typeof v.weightShare !== 'number' || !isObj(v.gate)) return null;
  const g = v.gate;
  return {
    epochIndex: v.epochIndex as number,
    digest: v.digest,
    epochStart: strOrNull(v.epochStart),
    epochEnd: strOrNull(v.epochEnd),
    weight: v.weight,
    weightShare: Math.min(1, Math.max(0, v.weightShare)),
    gate: { passed: typeof g.passed === 'boolean' ? g.passed : null, reason: strOrNull(g.reason) },
    row: isObj(v.row) ? v.row : null,
    burn: v.burn === true,
  };
}

export class EarningsStore {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
    db.migrate(EARNINGS_MIGRATIONS);
  }

  saveEpoch(hotkey: string, e: StoredEpoch): void {
    const body: StoredEpoch = {
      epochIndex: e.epochIndex,
      digest: e.digest,
      epochStart: e.epochStart,
      epochEnd: e.epochEnd,
      weight: e.weight,
      weightShare: e.weightShare,
      gate: e.gate,
      row: e.row,
      burn: e.burn,
    };
    this.db.db
      .prepare('INSERT INTO earnings_epochs (hotkey, epoch_index, body, saved_at) VALUES (?, ?, ?, ?) ON CONFLICT(hotkey, epoch_index) DO UPDATE SET body = excluded.body')
      .run(hotkey, e.epochIndex, JSON.stringify(body), Date.now());
  }

  /** Newest first. */
  epochs(hotkey: string, limit: number): StoredEpoch[] {
    const rows = this.db.db.prepare('SELECT body FROM earnings_epochs WHERE hotkey = ? ORDER BY epoch_index DESC LIMIT ?').all(hotkey, limit) as Array<{ body: string }>;
    return rows.map((r) => parseStoredEpoch(r.body)).filter((e): e is StoredEpoch => e !== null);
  }

  saveChainRead(hotkey: string, r: ChainRead): void {
    if (![r.at, r.alphaPerSec, r.priceTao].every(Number.isFinite)) return;
    this.db.db
      .prepare('INSERT INTO earnings_chain_reads (hotkey, at, alpha_per_sec, pool_alpha_per_sec, price_tao) VALUES (?, ?, ?, ?, ?)')
      .run(hotkey, r.at, r.alphaPerSec, r.poolAlphaPerSec, r.priceTao);
  }

  chainReads(hotkey: string, since: number): ChainRead[] {
    const rows = this.db.db.prepare('SELECT at, alpha_per_sec, pool_alpha_per_sec, price_tao FROM earnings_chain_reads WHERE hotkey = ? AND at >= ? ORDER BY at').all(hotkey, since) as Array<{
      at: number;
      alpha_per_sec: number;
      pool_alpha_per_sec: number | null;
      price_tao: number;
    }>;
    return rows.map((r) => ({ at: r.at, alphaPerSec: r.alpha_per_sec, poolAlphaPerSec: r.pool_alpha_per_sec, priceTao: r.price_tao }));
  }
}
