// One websocket to one gateway worker. A leg (gateway-leg.ts) owns one live connection and,
// after a `reconnect`, old ones kept open until their requests have answered.
import WebSocket from 'ws';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { LoadView } from './worker-load.ts';
import { unservableFrameError } from './response-errors.ts';
import { errorResponseFrame, heartbeatFrame, parseGatewayFrame, type Capacity, type GatewayFrame, type HelloFrame, type MinerFrame } from './frames.ts';

export interface LegTimings {
  heartbeatMs: number;
  pingMs: number;
  pingTimeoutMs: number;
  drainMaxMs: number;
  handshakeMs: number;
}

export const DEFAULT_LEG_TIMINGS: LegTimings = {
  heartbeatMs: 30_000,
  pingMs: 15_000,
  pingTimeoutMs: 60_000,
  // Equal to the request deadline (max_request_s): an old socket is kept as long as a request on it may run.
  drainMaxMs: 1_800_000,
  handshakeMs: 15_000,
};

export interface LegConnectionHooks {
  onOpen(conn: LegConnection): void;
  onFrame(conn: LegConnection, frame: GatewayFrame): void;
  onClose(conn: LegConnection, reason: string): void;
}

let nextId = 1;

export class LegConnection {
  readonly id = nextId++;
  readonly legIndex: number;
  /** corr_ids served on this socket and not yet answered. */
  readonly inflight = new Set<string>();
  draining = false;
  openedAt: number | null = null;
  private lastActivity: number;
  private lastPong: number;
  private closed = false;
  private readonly ws: WebSocket;
  private readonly timers = new Set<unknown>();

  private readonly hello: () => HelloFrame;
  private readonly capacity: Capacity;
  private readonly hooks: LegConnectionHooks;
  private readonly timings: LegTimings;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly load: LoadView | null;

  constructor(o: { legIndex: number; url: string; hello: () => HelloFrame; capacity: Capacity; hooks: LegConnectionHooks; timings: LegTimings; clock: Clock; log: Logger; load?: LoadView }) {
    const { legIndex, url, hooks, timings, clock } = o;
    this.legIndex = legIndex;
    this.hello = o.hello;
    this.capacity = o.capacity;
    this.hooks = hooks;
    this.timings = timings;
    this.clock = clock;
    this.log = o.log;
    this.load = o.load ?? null;
    this.lastActivity = clock.now();
    this.lastPong = clock.now();
    // No compression: frames carry base64 proofs that do not compress, and inflating costs loop time.
    this.ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: timings.handshakeMs, maxPayload: 64 * 1024 * 1024 });
    this.ws.on('open', () => {
      this.openedAt = clock.now();
      this.lastPong = clock.now();
      this.send(this.hello());
      this.every(timings.heartbeatMs, () => this.sendHeartbeat());
      this.every(timings.pingMs, () => this.keepalive());
      hooks.onOpen(this);
    });
    this.ws.on('pong', () => {
      this.lastPong = clock.now();
    });
    this.ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const parsed = parseGatewayFrame(data.toString());
      if (!parsed.ok) {
        // A serve we cannot run still gets its terminal response: silence would hold the
        // gateway's request open for its whole deadline.
        if (parsed.corrId !== undefined) this.send(errorResponseFrame(parsed.corrId, parsed.requestId ?? '', unservableFrameError(parsed.reason)));
        this.log.warn(`gw${legIndex} ignored a frame: ${parsed.reason}`);
        return;
      }
      if (parsed.frame.type === 'ping') {
        this.sendHeartbeat();
        return;
      }
      if (parsed.frame.type === 'serve') this.lastActivity = clock.now();
      hooks.onFrame(this, parsed.frame);
    });
    this.ws.on('error', (e) => {
      this.log.debug(`gw${legIndex} socket error: ${e.message}`);
      this.finishClose(e.message);
    });
    this.ws.on('close', (code, reason) => this.finishClose(`closed (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`));
  }

  get isOpen(): boolean {
    return !this.closed && this.ws.readyState === WebSocket.OPEN;
  }

  send(frame: MinerFrame): boolean {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  sendHeartbeat(): void {
    if (this.load) {
      this.send(heartbeatFrame(this.load.inflight(), this.load.idleSeconds(), this.capacity, this.load.kv?.() ?? null));
      return;
    }
    const idle = this.inflight.size > 0 ? 0 : (this.clock.now() - this.lastActivity) / 1000;
    this.send(heartbeatFrame(this.inflight.size, idle, this.capacity));
  }

  /** A request on this socket answered (or was cancelled): a draining socket closes when it was the last. */
  settle(corrId: string): void {
    this.inflight.delete(corrId);
    this.lastActivity = this.clock.now();
    if (this.draining && this.inflight.size === 0) this.close('drained');
  }

  /** Keep the socket for its in-flight requests (at most drainMaxMs), accept no new work on it. */
  drain(): void {
    if (this.draining) return;
    this.draining = true;
    if (this.inflight.size === 0) {
      this.close('drained');
      return;
    }
    this.after(this.timings.drainMaxMs, () => this.close('drain deadline passed'));
  }

  close(reason: string): void {
    if (this.closed) return;
    try {
      this.ws.close(1000, reason.slice(0, 100));
    } catch {
      this.ws.terminate();
    }
    // Do not wait for the peer's close frame to free the leg's bookkeeping; drop the socket
    // if the peer never answers the close (this timer outlives finishClose's clearing).
    setTimeout(() => this.ws.terminate(), 2000).unref();
    this.finishClose(reason);
  }

  private keepalive(): void {
    if (this.clock.now() - this.lastPong > this.timings.pingTimeoutMs) {
      this.log.warn(`gw${this.legIndex} keepalive ping timeout`);
      this.ws.terminate();
      this.finishClose('keepalive ping timeout');
      return;
    }
    if (this.isOpen) this.ws.ping();
  }

  private finishClose(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) this.clock.clearTimeout(t);
    this.timers.clear();
    this.hooks.onClose(this, reason);
  }

  private every(ms: number, fn: () => void): void {
    const tick = () => {
      if (this.closed) return;
      fn();
      this.after(ms, tick);
    };
    this.after(ms, tick);
  }

  private after(ms: number, fn: () => void): void {
    const t = this.clock.setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }
}
