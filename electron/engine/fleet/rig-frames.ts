// What a rig's engine may send this panel on its WebSocket, read in one place for both sockets to it: the
// Fleet row's link (rig-link.ts) and a window's full-panel relay (rig-relay.ts). A rig is a peer, so each
// frame is untrusted: it is size-checked, parsed, and either becomes one of the frames below or a refusal
// that says what was wrong (the caller counts it; nothing of it is passed on).
import type { RawData } from 'ws';
import { ERROR_CODES, type ErrorCode } from '../../../shared/errors.ts';
import type { LogLine } from '../../../shared/logs.ts';
import { err, type Result } from '../../../shared/result.ts';

export type RigFrame =
  /** The answer to invoke `id`, the rig's refusal kept when its code is one this panel knows. */
  | { kind: 'result'; id: number; result: Result<unknown> }
  | { kind: 'snapshot'; topic: string; version: number; data: unknown }
  | { kind: 'logs'; lines: LogLine[] }
  /** An event neither socket reads (the contract may add some): ignored, not refused. */
  | { kind: 'other-event' }
  | { kind: 'refused'; what: string };

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
/** The contract's topic names: letters and digits, so `__proto__` and the like are never a topic. */
const TOPIC = /^[A-Za-z][A-Za-z0-9]{0,63}$/;
/** A log batch longer than this is cut (the Logs page re-reads with logs.recent anyway). */
export const MAX_LOG_BATCH = 1000;
/** The rig's words in a refusal are kept up to this many characters. */
const MAX_ERROR_TEXT = 1000;

function bytesOf(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** The rig's own result: its value, or its error with the code kept when this panel knows it and its words named for the rig. */
function resultOf(rigName: string, res: unknown): Result<unknown> {
  if (isObj(res) && res.ok === true && Object.hasOwn(res, 'value')) return { ok: true, value: res.value };
  const e = isObj(res) && res.ok === false ? res.error : null;
  if (!isObj(e) || typeof e.message !== 'string') return err('unavailable', `${rigName} answered with a malformed result.`);
  const code = typeof e.code === 'string' && (ERROR_CODES as readonly string[]).includes(e.code) ? (e.code as ErrorCode) : 'unavailable';
  return err(code, `${rigName}: ${e.message.slice(0, MAX_ERROR_TEXT)}`);
}

/** One WebSocket message from the rig named `rigName`, at most `maxBytes` long. */
export function readRigFrame(rigName: string, data: RawData, maxBytes: number): RigFrame {
  const bytes = bytesOf(data);
  if (bytes.length > maxBytes) return { kind: 'refused', what: `a message of ${bytes.length} bytes (over ${maxBytes})` };
  let frame: unknown;
  try {
    frame = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { kind: 'refused', what: 'a message that is not JSON' };
  }
  if (!isObj(frame)) return { kind: 'refused', what: 'a message that is not a frame' };
  if (frame.kind === 'result' && typeof frame.id === 'number') return { kind: 'result', id: frame.id, result: resultOf(rigName, frame.result) };
  if (frame.kind !== 'event') return { kind: 'refused', what: 'an unknown frame' };
  const payload = frame.payload;
  if (frame.event === 'snapshot') {
    if (!isObj(payload) || typeof payload.topic !== 'string' || !TOPIC.test(payload.topic)) return { kind: 'refused', what: 'a snapshot without a topic' };
    if (typeof payload.version !== 'number' || !Object.hasOwn(payload, 'data')) return { kind: 'refused', what: `a ${payload.topic} snapshot without its version and data` };
    return { kind: 'snapshot', topic: payload.topic, version: payload.version, data: payload.data };
  }
  if (frame.event === 'logs') {
    if (!Array.isArray(payload)) return { kind: 'refused', what: 'a log batch that is not a list' };
    return { kind: 'logs', lines: payload.filter(isObj).slice(-MAX_LOG_BATCH) as unknown as LogLine[] };
  }
  return { kind: 'other-event' };
}
