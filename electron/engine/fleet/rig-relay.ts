// A rig's full panel, relayed by this panel's engine (docs/fleet.md, "A rig's full panel"). While a
// window has a rig open (fleet.watch), the engine opens a second WebSocket to the rig's engine through
// the rig's SSH tunnel, with the token only this engine holds, and passes the rig's snapshots and log
// lines on as `rig` events; the window's invokes go the same way (fleet.rigInvoke). The rig's replay on
// connect gives the window every current snapshot at once. The Fleet row's own link is separate: a
// relay that floods or fails never changes the row, and closing it never drops the row's connection.
import WebSocket, { type RawData } from 'ws';
import type { RigRelayEvent } from '../../../shared/fleet.ts';
import { err, type Result } from '../../../shared/result.ts';
import type { Clock } from '../lib/clock.ts';
import { readRigFrame } from './rig-frames.ts';
import { PendingInvokes } from './rig-invokes.ts';

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

export class RigRelay {
  private readonly o: RigRelayOptions;
  private ws: WebSocket | null = null;
  private isOpen = false;
  private readonly invokes: PendingInvokes;
  private closed = false;
  /** Relay frames the rig sent that were not its contract's shape (counted, never passed on). */
  refused = 0;

  constructor(o: RigRelayOptions) {
    this.o = o;
    this.invokes = new PendingInvokes(o.clock, o.name);
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
      this.invokes.failAll(`The connection to ${this.o.name} closed before it answered.`);
      if (!this.closed) this.state('closed', `The connection to ${this.o.name} closed; it reopens once the rig is online again.`);
    });
  }

  private onMessage(data: RawData): void {
    const frame = readRigFrame(this.o.name, data, this.o.maxFrameBytes);
    if (frame.kind === 'refused') this.refused += 1;
    else if (frame.kind === 'result') this.invokes.settle(frame.id, frame.result);
    else if (frame.kind === 'snapshot') {
      this.emit({ rigId: this.o.rigId, kind: 'snapshot', payload: { topic: frame.topic, version: frame.version, data: frame.data } as never });
    } else if (frame.kind === 'logs' && frame.lines.length > 0) this.emit({ rigId: this.o.rigId, kind: 'logs', payload: frame.lines });
  }

  /** An invoke on the rig's engine over the relay: its answer, `unavailable` when the relay is not open, `timeout` past the deadline. */
  invoke(method: string, req: unknown, timeoutMs: number): Promise<Result<unknown>> {
    const ws = this.ws;
    if (!ws || !this.isOpen || ws.readyState !== WebSocket.OPEN)
      return Promise.resolve(err('unavailable', `${this.o.name}'s panel is not connected right now: it reconnects by itself once the rig is online.`));
    return this.invokes.send(ws, method, req, timeoutMs);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const ws = this.ws;
    this.ws = null;
    this.isOpen = false;
    this.invokes.failAll(`${this.o.name}'s panel was closed.`);
    if (ws) ws.terminate();
  }
}
