// A rig's full panel, relayed by this panel's engine (docs/fleet.md, "A rig's full panel"). While a
// window has a rig open (fleet.watch), the engine opens a second WebSocket to the rig's engine through
// the rig's SSH tunnel, with the token only this engine holds, and passes the rig's snapshots and log
// lines on as `rig` events; the window's invokes go the same way (fleet.rigInvoke). The rig's replay on
// connect gives the window every current snapshot at once. The Fleet row's own link is separate: a
// relay that floods or fails never changes the row, and closing it never drops the row's connection.
import WebSocket, { type RawData } from 'ws';
import { ERROR_CODES, errorMessage, type ErrorCode } from '../../../shared/errors.ts';
import type { RigRelayEvent } from '../../../shared/fleet.ts';
import type { LogLine } from '../../../shared/logs.ts';
import { err, type Result } from '../../../shared/result.ts';
import type { Clock } from '../lib/clock.ts';

/** Where the rig's engine is reached now: the tunnel's local port and the rig's token (engine memory only). */
export interface RelayAccess {
  port: number;
  token: string;
}

export interface RigRelayOptions {
  rigId: string;
  name: string;
  /** Null while the rig's link is not online (no tunnel to go through). */
  access: () => RelayAccess | null;
  emit: (ev: RigRelayEvent) => void;
  clock: Clock;
  maxFrameBytes: number;
  connectTimeoutMs: number;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const TOPIC = /^[A-Za-z][A-Za-z0-9]{0,63}$/;
/** A log batch longer than this is cut (the Logs page re-reads with logs.recent anyway). */
const MAX_LOG_BATCH = 1000;

/** The rig's own error, kept when its code is one this panel knows; its words are the rig's, bounded. */
function relayedError(name: string, e: unknown): Result<never> {
  if (!isObj(e) || typeof e.message !== 'string') return err('unavailable', `${name} answered with a malformed result.`);
  const code = typeof e.code === 'string' && (ERROR_CODES as readonly string[]).includes(e.code) ? (e.code as ErrorCode) : 'unavailable';
  return err(code, `${name}: ${e.message.slice(0, 1000)}`);
}

export class RigRelay {
  private readonly o: RigRelayOptions;
  private ws: WebSocket | null = null;
  private isOpen = false;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Result<unknown>) => void; timer: unknown }>();
  private closed = false;
  /** Relay frames the rig sent that were not its contract's shape (counted, never passed on). */
  refused = 0;

  constructor(o: RigRelayOptions) {
    this.o = o;
  }

  get open(): boolean {
    return this.isOpen;
  }

  private emit(ev: RigRelayEvent): void {
    try {
      this.o.emit(ev);
    } catch {
      // a listener's failure must not become the relay's
    }
  }

  private state(state: 'open' | 'closed', detail: string): void {
    this.emit({ rigId: this.o.rigId, kind: 'state', state, detail });
  }

  /** Connects when it is not connected and the rig's link is online; a no-op otherwise. */
  ensure(): void {
    if (this.closed || this.ws) return;
    const access = this.o.access();
    if (!access) {
      this.state('closed', `${this.o.name} is not connected: its full panel opens once the Fleet row says online.`);
      return;
    }
    const ws = new WebSocket(`ws://127.0.0.1:${access.port}/ws`, {
      headers: { authorization: `Bearer ${access.token}` },
      maxPayload: this.o.maxFrameBytes,
      handshakeTimeout: this.o.connectTimeoutMs,
      perMessageDeflate: false,
    });
    this.ws = ws;
    ws.on('open', () => {
      if (this.ws !== ws) return;
      this.isOpen = true;
      this.state('open', `Connected to ${this.o.name} through the panel.`);
    });
    ws.on('message', (data: RawData) => this.onMessage(data));
    ws.on('error', () => undefined); // the close that follows says it
    ws.on('close', () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.isOpen = false;
      this.failPending(`The connection to ${this.o.name} closed before it answered.`);
      if (!this.closed) this.state('closed', `The connection to ${this.o.name} closed; it reopens once the rig is online again.`);
    });
  }

  private failPending(message: string): void {
    for (const [id, p] of this.pending) {
      this.o.clock.clearTimeout(p.timer);
      p.resolve(err('unavailable', message));
      this.pending.delete(id);
    }
  }

  private onMessage(data: RawData): void {
    let frame: unknown;
    try {
      frame = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'));
    } catch {
      this.refused += 1;
      return;
    }
    if (!isObj(frame)) return void (this.refused += 1);
    if (frame.kind === 'result' && typeof frame.id === 'number') {
      const p = this.pending.get(frame.id);
      if (!p) return;
      this.pending.delete(frame.id);
      this.o.clock.clearTimeout(p.timer);
      const res = frame.result;
      if (isObj(res) && res.ok === true && Object.hasOwn(res, 'value')) p.resolve({ ok: true, value: res.value });
      else p.resolve(relayedError(this.o.name, isObj(res) ? res.error : null));
      return;
    }
    if (frame.kind !== 'event') return void (this.refused += 1);
    const payload = frame.payload;
    if (frame.event === 'snapshot') {
      if (!isObj(payload) || typeof payload.topic !== 'string' || !TOPIC.test(payload.topic) || typeof payload.version !== 'number' || !Object.hasOwn(payload, 'data')) {
        return void (this.refused += 1);
      }
      this.emit({ rigId: this.o.rigId, kind: 'snapshot', payload: { topic: payload.topic, version: payload.version, data: payload.data } as never });
    } else if (frame.event === 'logs') {
      if (!Array.isArray(payload)) return void (this.refused += 1);
      const lines = payload.filter(isObj).slice(-MAX_LOG_BATCH) as unknown as LogLine[];
      if (lines.length > 0) this.emit({ rigId: this.o.rigId, kind: 'logs', payload: lines });
    }
  }

  /** An invoke on the rig's engine over the relay: its answer, `unavailable` when the relay is not open, `timeout` past the deadline. */
  invoke(method: string, req: unknown, timeoutMs: number): Promise<Result<unknown>> {
    const ws = this.ws;
    if (!ws || !this.isOpen || ws.readyState !== WebSocket.OPEN)
      return Promise.resolve(err('unavailable', `${this.o.name}'s panel is not connected right now: it reconnects by itself once the rig is online.`));
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = this.o.clock.setTimeout(() => {
        this.pending.delete(id);
        resolve(err('timeout', `${this.o.name} did not answer ${method} in ${Math.round(timeoutMs / 1000)} s: check the rig, then retry.`));
      }, timeoutMs);
      this.pending.set(id, { resolve, timer });
      try {
        ws.send(JSON.stringify({ kind: 'invoke', id, method, req }));
      } catch (e) {
        this.pending.delete(id);
        this.o.clock.clearTimeout(timer);
        resolve(err('unavailable', `${this.o.name}: ${errorMessage(e)}`));
      }
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const ws = this.ws;
    this.ws = null;
    this.isOpen = false;
    this.failPending(`${this.o.name}'s panel was closed.`);
    if (ws) ws.terminate();
  }
}
