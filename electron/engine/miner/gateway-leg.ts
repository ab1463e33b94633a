// One leg = one gateway worker index: keeps a live socket to it, re-dials with capped backoff
// and jitter, and on `reconnect` opens a fresh socket at once while the old one drains.
import type { LegSnapshot, LegStatus } from '../../../shared/miner.ts';
import { Backoff, type BackoffOptions } from '../lib/backoff.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Capacity, GatewayFrame, HelloFrame } from './frames.ts';
import { LegConnection, type LegTimings } from './leg-connection.ts';
import type { LoadView } from './worker-load.ts';

export interface LegHandlers {
  onServe(conn: LegConnection, frame: Extract<GatewayFrame, { type: 'serve' }>): void;
  onCancel(conn: LegConnection, corrId: string): void;
  onChange(): void;
  /** One line per leg event, for the daemon's stdout. */
  onEvent(index: number, text: string): void;
}

export interface LegOptions {
  index: number;
  url: string;
  hello: () => HelloFrame;
  capacity: Capacity;
  handlers: LegHandlers;
  timings: LegTimings;
  backoff: BackoffOptions;
  clock: Clock;
  log: Logger;
  /** The process-wide load every heartbeat reports. */
  load?: LoadView;
}

export class GatewayLeg {
  private status: LegStatus = 'closed';
  private current: LegConnection | null = null;
  private readonly draining = new Set<LegConnection>();
  private denyReason: string | null = null;
  private lastError: string | null = null;
  private nextRetryAt: number | null = null;
  private connectedAt: number | null = null;
  private dials = 0;
  private stopped = true;
  /** Why this leg is withdrawn (its engine's serve is unhealthy); null while it serves. */
  private withdrawnCause: string | null = null;
  private retryTimer: unknown = null;
  private readonly backoff: Backoff;
  readonly index: number;
  readonly url: string;
  private readonly hello: () => HelloFrame;
  private readonly capacity: Capacity;
  private readonly handlers: LegHandlers;
  private readonly timings: LegTimings;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly load: LoadView | undefined;

  constructor(o: LegOptions) {
    this.index = o.index;
    this.url = o.url;
    this.hello = o.hello;
    this.capacity = o.capacity;
    this.handlers = o.handlers;
    this.timings = o.timings;
    this.clock = o.clock;
    this.log = o.log;
    this.load = o.load;
    this.backoff = new Backoff(o.backoff);
  }

  start(): void {
    this.stopped = false;
    this.dial();
  }

  /** Close every socket of this leg: the live one at once, draining ones too (the engine is stopping). */
  stop(): void {
    this.stopped = true;
    if (this.retryTimer !== null) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.current?.close('miner stopping');
    for (const c of [...this.draining]) c.close('miner stopping');
    this.setStatus('closed');
  }

  /**
   * The engine's serve is unhealthy: stop taking work on this leg. Its socket drains (closes once
   * the requests on it have answered, as on a `reconnect`), so nothing in flight is cut, and it is
   * not re-dialed until `restore()`.
   */
  withdraw(cause: string): void {
    if (this.stopped || this.withdrawnCause !== null) return;
    this.withdrawnCause = cause;
    this.clearRetry();
    const conn = this.current;
    this.current = null;
    this.connectedAt = null;
    this.lastError = `withdrawn: serve unhealthy (${cause})`;
    this.setStatus('withdrawn');
    this.handlers.onEvent(this.index, `gw${this.index} withdrawn: serve unhealthy (${cause})${conn ? `; draining ${conn.inflight.size} in flight` : ''}`);
    if (conn) {
      this.draining.add(conn);
      conn.drain();
    }
  }

  /** The serve is healthy again: dial this leg afresh (same worker_id). */
  restore(): void {
    if (this.stopped || this.withdrawnCause === null) return;
    this.withdrawnCause = null;
    this.lastError = null;
    this.backoff.reset();
    this.handlers.onEvent(this.index, `gw${this.index} serve healthy again: re-dialing`);
    this.dial();
  }

  /** The gateway no longer runs this worker index (a scale-down): drain and never re-dial. */
  retire(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.clearRetry();
    const conn = this.current;
    this.current = null;
    if (conn) {
      this.draining.add(conn);
      conn.drain();
    }
    this.setStatus('closed');
  }

  /** A heartbeat now on every socket of this leg, draining ones too: their gateway worker still admits against it. */
  pushLoad(): void {
    this.current?.sendHeartbeat();
    for (const c of this.draining) c.sendHeartbeat();
  }

  get isWithdrawn(): boolean {
    return this.withdrawnCause !== null;
  }

  private clearRetry(): void {
    if (this.retryTimer !== null) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.nextRetryAt = null;
  }

  get live(): boolean {
    return this.current?.isOpen === true && this.status !== 'denied';
  }

  get isAdmitted(): boolean {
    return this.status === 'admitted';
  }

  get denied(): string | null {
    return this.status === 'denied' ? this.denyReason : null;
  }

  get inflight(): number {
    let n = this.current?.inflight.size ?? 0;
    for (const c of this.draining) n += c.inflight.size;
    return n;
  }

  snapshot(): LegSnapshot {
    return {
      index: this.index,
      url: this.url,
      status: this.status,
      denyReason: this.denyReason,
      inflight: this.inflight,
      draining: this.draining.size,
      connectedAt: this.connectedAt,
      dials: this.dials,
      lastError: this.lastError,
      nextRetryAt: this.nextRetryAt,
    };
  }

  private dial(): void {
    if (this.stopped || this.withdrawnCause !== null) return;
    this.retryTimer = null;
    this.nextRetryAt = null;
    this.dials += 1;
    this.setStatus('dialing');
    const conn = new LegConnection({
      legIndex: this.index,
      url: this.url,
      hello: this.hello,
      capacity: this.capacity,
      hooks: {
        onOpen: (c) => this.onOpen(c),
        onFrame: (c, f) => this.onFrame(c, f),
        onClose: (c, reason) => this.onClose(c, reason),
      },
      timings: this.timings,
      clock: this.clock,
      log: this.log,
      ...(this.load ? { load: this.load } : {}),
    });
    this.current = conn;
  }

  private onOpen(conn: LegConnection): void {
    if (conn !== this.current) return;
    this.connectedAt = this.clock.now();
    this.lastError = null;
    this.setStatus('open');
    this.handlers.onEvent(this.index, `gw${this.index} HELLO sent (inflight=${this.capacity.max_inflight}); awaiting admission`);
  }

  private onFrame(conn: LegConnection, frame: GatewayFrame): void {
    switch (frame.type) {
      case 'admit':
        if (conn !== this.current) return;
        this.denyReason = null;
        this.backoff.reset();
        this.setStatus('admitted');
        this.handlers.onEvent(this.index, `gw${this.index} ADMITTED`);
        return;
      case 'deny':
        if (conn !== this.current) return;
        this.denyReason = frame.reason;
        this.setStatus('denied');
        this.handlers.onEvent(this.index, `gw${this.index} DENIED: ${frame.reason}`);
        return;
      case 'serve':
        conn.inflight.add(frame.corr_id);
        this.handlers.onServe(conn, frame);
        this.handlers.onChange();
        return;
      case 'cancel':
        this.handlers.onCancel(conn, frame.corr_id);
        return;
      case 'reconnect':
        this.reconnect(conn);
        return;
      case 'ping':
        return; // answered by the connection itself
      default: {
        const never: never = frame;
        void never;
      }
    }
  }

  /** The gateway is draining for a deploy: dial a fresh socket now, keep the old one until its requests answer. */
  private reconnect(conn: LegConnection): void {
    this.handlers.onEvent(this.index, `gw${this.index} RECONNECT asked: dialing a fresh leg, draining ${conn.inflight.size} in flight on the old one`);
    if (conn === this.current) {
      this.current = null;
      this.draining.add(conn);
      conn.drain();
      this.dial();
    }
  }

  private onClose(conn: LegConnection, reason: string): void {
    if (this.draining.delete(conn)) {
      this.handlers.onEvent(this.index, `gw${this.index} old socket closed (${reason})`);
      this.handlers.onChange();
      return;
    }
    if (conn !== this.current) return;
    this.current = null;
    this.connectedAt = null;
    if (this.stopped || this.withdrawnCause !== null) return;
    this.lastError = reason;
    const wait = this.backoff.next();
    this.nextRetryAt = this.clock.now() + wait;
    // A denied leg keeps its reason visible while it waits to retry.
    if (this.status !== 'denied') this.setStatus('backoff');
    else this.handlers.onChange();
    this.handlers.onEvent(this.index, `gw${this.index} disconnected: ${reason}; re-dialing in ${(wait / 1000).toFixed(1)} s`);
    this.retryTimer = this.clock.setTimeout(() => this.dial(), wait);
  }

  private setStatus(s: LegStatus): void {
    this.status = s;
    this.handlers.onChange();
  }
}
