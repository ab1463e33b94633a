// What this validator last put on chain: applied epoch, block and time of the submission, the vector
// and its digest. Written atomically and only after the chain accepted; every field is validated on
// its own when read, so one poisoned field is dropped without discarding (or trusting) the rest.
import { readFileSync } from 'node:fs';
import type { HotkeyWeight } from '../../../shared/validator.ts';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import { isWeightVector } from './payload-verify.ts';

export interface ValidatorState {
  lastApplied: number | null;
  lastSubmitBlock: number | null;
  lastSubmitMs: number | null;
  cachedWeights: HotkeyWeight[] | null;
  cachedDigest: string | null;
}

export interface StateRead {
  state: ValidatorState;
  /** Fields present in the file but refused on read, for the log and the UI. */
  dropped: string[];
}

export const EMPTY_STATE: ValidatorState = { lastApplied: null, lastSubmitBlock: null, lastSubmitMs: null, cachedWeights: null, cachedDigest: null };

function nonNegInt(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
}

function positiveInt(v: unknown): number | null {
  const n = nonNegInt(v);
  return n !== null && n > 0 ? n : null;
}

export function readState(path: string): StateRead {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch {
    return { state: { ...EMPTY_STATE }, dropped: [] };
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { state: { ...EMPTY_STATE }, dropped: ['(whole file: not JSON)'] };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { state: { ...EMPTY_STATE }, dropped: ['(whole file: not an object)'] };
  const d = data as Record<string, unknown>;
  const dropped: string[] = [];
  const field = <T>(name: string, v: T | null): T | null => {
    if (v === null && d[name] !== undefined && d[name] !== null) dropped.push(name);
    return v;
  };
  // Upstream wrote seconds; this engine writes milliseconds under its own key, and reads either.
  const ms = nonNegInt(d.last_submit_ms) ?? (typeof d.last_submit_ts === 'number' && Number.isFinite(d.last_submit_ts) && d.last_submit_ts >= 0 ? Math.round(d.last_submit_ts * 1000) : null);
  const state: ValidatorState = {
    lastApplied: field('last_applied', nonNegInt(d.last_applied)),
    lastSubmitBlock: field('last_submit_block', positiveInt(d.last_submit_block)),
    lastSubmitMs: field(d.last_submit_ms !== undefined ? 'last_submit_ms' : 'last_submit_ts', ms),
    cachedWeights: field('cached_weights', isWeightVector(d.cached_weights) ? d.cached_weights : null),
    cachedDigest: field('cached_digest', typeof d.cached_digest === 'string' && /^[0-9a-f]{64}$/.test(d.cached_digest) ? d.cached_digest : null),
  };
  return { state, dropped };
}

/** Replace the file in one step. Call only after the chain accepted the extrinsic: all fields move together. */
export function writeState(path: string, s: ValidatorState): void {
  const body = {
    last_applied: s.lastApplied,
    last_submit_block: s.lastSubmitBlock,
    // Seconds too, so an upstream validator pointed at this file keeps its schedule.
    last_submit_ts: s.lastSubmitMs === null ? null : s.lastSubmitMs / 1000,
    last_submit_ms: s.lastSubmitMs,
    cached_weights: s.cachedWeights,
    cached_digest: s.cachedDigest,
  };
  writeFileAtomic(path, JSON.stringify(body) + '\n', 0o600);
}
