// The last mining run's summary: written when mining stops, read at start-up, so a stopped Mine page
// shows what the rig did last time instead of an empty page. The file is ours but may be hand-edited
// or truncated: anything that does not read back as a summary is ignored, never trusted.
import { existsSync, readFileSync } from 'node:fs';
import type { MinerSnapshot } from '../../../shared/miner.ts';
import type { MiningRunSummary } from '../../../shared/preflight.ts';
import { writeFileAtomic } from '../lib/atomic-file.ts';

const maxOrNull = (xs: Array<number | null>): number | null => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length === 0 ? null : Math.max(...v);
};

/** One summary over every worker of the run: counts add up, latency p99s take the worst worker. */
export function summarizeRun(startedAt: number, stoppedAt: number, miners: MinerSnapshot[]): MiningRunSummary {
  const sum = (f: (m: MinerSnapshot) => number) => miners.reduce((a, m) => a + f(m), 0);
  const ok = sum((m) => m.stats.ok);
  const errors = sum((m) => m.stats.errors);
  const last = miners[0];
  return {
    startedAt,
    stoppedAt,
    workers: miners.length,
    lastPhase: last?.phase ?? 'stopped',
    lastDetail: last?.detail ?? '',
    ok,
    errors,
    cancelled: sum((m) => m.stats.cancelled),
    acceptanceRate: ok + errors > 0 ? ok / (ok + errors) : null,
    ttftP99Ms: maxOrNull(miners.map((m) => m.stats.ttftMs.p99)),
    tpotP99Ms: maxOrNull(miners.map((m) => m.stats.tpotMs.p99)),
    tokensPerSecond: sum((m) => m.stats.tokensPerSecond),
  };
}

const NUMBER_FIELDS = ['startedAt', 'stoppedAt', 'workers', 'ok', 'errors', 'cancelled', 'tokensPerSecond'] as const;
const NULLABLE_NUMBERS = ['acceptanceRate', 'ttftP99Ms', 'tpotP99Ms'] as const;

export function parseRunSummary(raw: unknown): MiningRunSummary | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const o = raw as Record<string, unknown>;
  const finite = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  if (!NUMBER_FIELDS.every((k) => finite(o[k]))) return null;
  if (!NULLABLE_NUMBERS.every((k) => o[k] === null || finite(o[k]))) return null;
  if (typeof o.lastPhase !== 'string' || typeof o.lastDetail !== 'string' || o.lastPhase.length > 64 || o.lastDetail.length > 2000) return null;
  const out = {} as Record<string, unknown>;
  for (const k of [...NUMBER_FIELDS, ...NULLABLE_NUMBERS, 'lastPhase', 'lastDetail'] as const) out[k] = o[k];
  return out as unknown as MiningRunSummary;
}

export function readRunSummary(file: string): MiningRunSummary | null {
  if (!existsSync(file)) return null;
  try {
    return parseRunSummary(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return null;
  }
}

export function writeRunSummary(file: string, s: MiningRunSummary): void {
  writeFileAtomic(file, JSON.stringify(s, null, 2) + '\n');
}
