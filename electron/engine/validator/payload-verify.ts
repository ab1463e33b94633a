import { sha256Hex } from './digest.ts';
import { polkadot } from '../lib/polkadot.ts';
import type { HotkeyWeight, PayloadRejectReason } from '../../../shared/validator.ts';
import { U16_MAX } from './constants.ts';

const { decodeAddress, sr25519Verify } = polkadot('@polkadot/util-crypto');

export type PayloadVerdict =
  | {
      ok: true;
      epochIndex: number;
      /** sha256(result_json) recomputed here, equal to the payload's digest. */
      digest: string;
      /** Taken only from the verified result_json, never from the display `weights` field. */
      weights: HotkeyWeight[];
      /** The decoded result, for display only: field names beyond the vector are not published. */
      result: Record<string, unknown>;
    }
  | { ok: false; reason: PayloadRejectReason; detail: string; epochIndex: number | null };

export function epochMessage(netuid: number, epochIndex: number, digestHex: string): string {
  return `engy-sn53:epoch:v1:${netuid}:${epochIndex}:${digestHex}`;
}

export { sha256Hex };

function isInt(v: unknown): v is number {
  // typeof excludes booleans, which JSON would otherwise let pass as 0/1 in looser checks.
  return typeof v === 'number' && Number.isInteger(v);
}

/** A list of [hotkey string, integer 0..65535] pairs; the same predicate guards the cached vector. */
export function isWeightVector(w: unknown): w is HotkeyWeight[] {
  return Array.isArray(w) && w.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && isInt(p[1]) && p[1] >= 0 && p[1] <= U16_MAX);
}

const HEX_SIG = /^[0-9a-fA-F]{128}$/;

function rejected(reason: PayloadRejectReason, detail: string, epochIndex: unknown = null): PayloadVerdict {
  return { ok: false, reason, detail, epochIndex: isInt(epochIndex) ? epochIndex : null };
}

/**
 * PROTOCOL 8, in its exact order: object, v, netuid, result_json type, digest, signature by the pinned
 * master over the recomputed digest, then the decoded result. No clock and no epoch knowledge here:
 * refusing to go backwards belongs to the schedule.
 */
export function verifyPayload(payload: unknown, opts: { masterHotkey: string; netuid: number }): PayloadVerdict {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return rejected('malformed', 'the payload is not a JSON object');
  const p = payload as Record<string, unknown>;
  const idx = p.epoch_index;
  if (p.v !== 1) return rejected('version', `unsupported payload version ${JSON.stringify(p.v)}`, idx);
  if (p.netuid !== opts.netuid) return rejected('netuid', `payload is for netuid ${JSON.stringify(p.netuid)}, not ${opts.netuid}`, idx);
  const resultJson = p.result_json;
  if (typeof resultJson !== 'string') return rejected('malformed', 'result_json is not a string', idx);
  const digest = sha256Hex(Buffer.from(resultJson, 'utf8'));
  if (digest !== p.digest) return rejected('digest', 'digest does not match sha256(result_json)', idx);
  if (!isInt(idx) || idx < 0) return rejected('malformed', 'epoch_index is not a non-negative integer', idx);
  const sig = p.signature;
  if (typeof sig !== 'string' || !HEX_SIG.test(sig)) return rejected('signature', 'signature is not 64 bytes of hex', idx);
  let valid = false;
  try {
    const pub = decodeAddress(opts.masterHotkey);
    const msg = Buffer.from(epochMessage(opts.netuid, idx, digest), 'utf8');
    valid = sr25519Verify(msg, Buffer.from(sig, 'hex'), pub);
  } catch {
    valid = false;
  }
  if (!valid) return rejected('signature', 'signature is not by the pinned master hotkey', idx);
  let result: unknown;
  try {
    result = JSON.parse(resultJson);
  } catch {
    return rejected('malformed', 'result_json is not valid JSON', idx);
  }
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return rejected('malformed', 'result_json is not an object', idx);
  const r = result as Record<string, unknown>;
  if (r.epoch_index !== idx) return rejected('malformed', 'result_json epoch_index differs from the payload', idx);
  if (r.netuid !== opts.netuid) return rejected('malformed', 'result_json netuid differs from the payload', idx);
  if (!isWeightVector(r.weights)) return rejected('malformed', 'result_json weights is not a list of [hotkey, 0..65535] pairs', idx);
  return { ok: true, epochIndex: idx, digest, weights: r.weights.map(([h, w]) => [h, w] as HotkeyWeight), result: r };
}
