// How the reference miner reads the loosely typed fields of a serve frame, so an odd value means
// here what it means there: `stream` by Python truthiness, `max_tokens` through `int(x or 512)`.
import { BadRequestError } from './response-errors.ts';

export const DEFAULT_MAX_TOKENS = 512;
export const MAX_OUTPUT_TOKENS = 32_768;

/** Python's bool(x) for a JSON value: "false" and 1 are true; 0, "", null, [] and {} are false. */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/**
 * min(int(max_tokens or 512), 32768): a numeric string counts ("64"), a float is truncated, a
 * negative number asks for no tokens at all (the reference then answers an empty completion);
 * anything int() refuses is the buyer's malformed request.
 */
export function maxNewTokens(v: unknown): number {
  if (!pyTruthy(v)) return DEFAULT_MAX_TOKENS;
  let n: number;
  if (typeof v === 'boolean') n = 1;
  else if (typeof v === 'number') n = Math.trunc(v);
  else if (typeof v === 'string' && /^\s*[+-]?\d+(?:_\d+)*\s*$/.test(v)) n = Number(v.trim().replace(/_/g, ''));
  else throw new BadRequestError(`max_tokens must be an integer, got ${JSON.stringify(v).slice(0, 40)}`);
  if (!Number.isFinite(n)) throw new BadRequestError(`max_tokens must be an integer, got ${JSON.stringify(v).slice(0, 40)}`);
  return Math.min(n, MAX_OUTPUT_TOKENS);
}
