import type { Result } from '../../shared/result.ts';
import { err } from '../../shared/result.ts';

export type ParsedFrame =
  | { kind: 'invoke'; id: number; method: string; req: unknown }
  /** Well-formed enough to answer by id, but refused (e.g. a method that is not a string). */
  | { kind: 'refused'; id: number; result: Result<never> }
  /** Not a frame of this protocol: the connection is closed. */
  | { kind: 'fatal'; reason: string };

const own = (o: object, k: string): unknown => (Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined);

/**
 * Reads one client frame using its own properties only, so keys such as `__proto__`,
 * `constructor` or `hasOwnProperty` are plain data and never reach an inherited member.
 */
export function parseClientFrame(text: string): ParsedFrame {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { kind: 'fatal', reason: 'frames are JSON' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { kind: 'fatal', reason: 'frames are JSON objects' };
  if (own(v, 'kind') !== 'invoke') return { kind: 'fatal', reason: 'unknown frame' };
  const id = own(v, 'id');
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) return { kind: 'fatal', reason: 'an invoke needs an integer id' };
  const method = own(v, 'method');
  if (typeof method !== 'string' || method.length > 100) {
    return { kind: 'refused', id, result: err('bad-request', 'The request was refused: "method" must be the name of an engine action.') };
  }
  return { kind: 'invoke', id, method, req: own(v, 'req') ?? null };
}
