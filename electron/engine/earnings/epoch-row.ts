import type { EpochEarnings } from '../../../shared/earnings.ts';
import type { StoredEpoch } from './earnings-store.ts';
import type { HotkeyWeight } from '../../../shared/validator.ts';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The provider's row for a hotkey: any `miners` entry that names it under any key. */
export function findMinerRow(result: Record<string, unknown>, hotkey: string): Record<string, unknown> | null {
  const miners = result.miners;
  if (!Array.isArray(miners)) return null;
  for (const m of miners) if (isObj(m) && Object.values(m).some((v) => v === hotkey)) return m;
  return null;
}

/** Gate facts by the names a row may use (gate_reason, gates, passed...): read defensively. */
export function gateOf(row: Record<string, unknown> | null): EpochEarnings['gate'] {
  if (!row) return { passed: null, reason: null };
  let reason: string | null = null;
  let passed: boolean | null = null;
  for (const [k, v] of Object.entries(row)) {
    if (/gate_?reason/i.test(k) && typeof v === 'string') reason = v || null;
    if (/^(gates?_?)?pass(ed)?$/i.test(k) && typeof v === 'boolean') passed = v;
  }
  if (passed === null && 'gate_reason' in row) passed = !row.gate_reason;
  return { passed, reason };
}

export function epochEarnings(p: { epochIndex: number; digest: string; weights: HotkeyWeight[]; result: Record<string, unknown> }, hotkey: string, ownerHotkey: string): StoredEpoch {
  const weight = p.weights.find(([h]) => h === hotkey)?.[1] ?? 0;
  const row = findMinerRow(p.result, hotkey);
  const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);
  return {
    epochIndex: p.epochIndex,
    digest: p.digest,
    epochStart: str(p.result.epoch_start),
    epochEnd: str(p.result.epoch_end),
    weight,
    weightShare: weight / 65535,
    gate: gateOf(row),
    row,
    burn: p.weights.length === 1 && p.weights[0]![0] === ownerHotkey,
  };
}
