// `engy-panel validate --healthcheck`: the container/systemd watchdog probe. The daemon stamps its
// heartbeat file ({"ts": seconds}) after every completed tick; the loop is healthy while that stamp
// is younger than the stall limit (max(3 x poll, 15 min)), as the reference's HEALTHCHECK reads it.
import { readFileSync } from 'node:fs';
import { stallLimitMs } from './constants.ts';
import { describeError } from '../lib/fs-errors.ts';

export type HealthVerdict = { ok: true; ageS: number; text: string } | { ok: false; text: string };

/** Refuses anything larger: a heartbeat file is a few dozen bytes. */
const MAX_BYTES = 4096;

export function checkHeartbeat(path: string, pollS: number, nowMs: number): HealthVerdict {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return {
      ok: false,
      text:
        code === 'ENOENT'
          ? `no heartbeat yet (${path} does not exist: the loop has not completed a tick)`
          : `cannot read the heartbeat file ${path}: ${describeError(e, { what: 'it', fix: 'give --data-dir (or --heartbeat-file) the folder the validator uses' })}`,
    };
  }
  if (raw.length > MAX_BYTES) return { ok: false, text: `the heartbeat file ${path} is not a heartbeat (${raw.length} bytes)` };
  let ts: unknown;
  try {
    const v: unknown = JSON.parse(raw);
    ts = typeof v === 'object' && v !== null && !Array.isArray(v) && Object.hasOwn(v, 'ts') ? (v as { ts: unknown }).ts : undefined;
  } catch {
    return { ok: false, text: `the heartbeat file ${path} is not JSON` };
  }
  if (typeof ts !== 'number' || !Number.isFinite(ts)) return { ok: false, text: `the heartbeat file ${path} has no numeric "ts"` };
  const ageS = Math.max(0, nowMs / 1000 - ts);
  const limitS = stallLimitMs(pollS * 1000) / 1000;
  if (ageS > limitS) return { ok: false, text: `stale heartbeat: last completed tick ${Math.round(ageS)} s ago > ${Math.round(limitS)} s` };
  return { ok: true, ageS, text: `ok (last tick ${Math.round(ageS)} s ago)` };
}
