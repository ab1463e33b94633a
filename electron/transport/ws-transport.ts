import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import type { ServerFrame, SnapshotEnvelope } from '../../shared/api.ts';
import type { RigRelayEvent } from '../../shared/fleet.ts';
import type { HandlerTable } from '../contract/handler-table.ts';
import { dispatch } from '../contract/handler-table.ts';
import type { SnapshotHub } from '../contract/snapshot-hub.ts';
import type { Disposable } from '../engine/lib/disposable.ts';
import { parseClientFrame } from './client-frame.ts';
import { err, type Result } from '../../shared/result.ts';

export interface TransportLimits {
  /** A bigger frame closes the connection with 1009. */
  maxFrameBytes: number;
  /** Upgrades beyond this many open clients get 503. */
  maxClients: number;
  /** Bytes queued to a client above which snapshots wait (coalesced per topic) and log batches are dropped. */
  softBytes: number;
  /** Bytes queued to a client above which it is closed at once: memory per client is bounded by this. */
  hardBytes: number;
  /** A client that stays above softBytes this long is closed (a sleeping laptop behind a tunnel). */
  overBudgetMs: number;
  /** Ping interval; a client that did not answer the previous ping is reaped. */
  pingMs: number;
  /** Requests one client may have in flight; beyond, new ones are answered "unavailable" at once. */
  maxInflight: number;
}

export const DEFAULT_LIMITS: TransportLimits = {
  maxFrameBytes: 1024 * 1024,
  maxClients: 32,
  softBytes: 1024 * 1024,
  hardBytes: 16 * 1024 * 1024,
  overBudgetMs: 30_000,
  pingMs: 30_000,
  maxInflight: 32,
};

export interface WsTransportOptions {
  /** A handler threw something that is not an AppFailure, or the transport itself failed. */
  onInternal?: (e: unknown) => void;
  /** A client was closed by the transport (budget, dead, protocol) and why. */
  onWarn?: (message: string) => void;
  limits?: Partial<TransportLimits>;
}

interface Client {
  ws: WebSocket;
  /** Snapshots held back while the client is over budget: only the latest per topic survives. */
  waiting: Map<string, string>;
  overSince: number | null;
  alive: boolean;
  inflight: number;
  droppedLogLines: number;
  /** A fatal frame arrived while requests were running: closed with this once they are answered. */
  closing: { code: number; reason: string } | null;
}

/** How long a fatal frame's close waits for the requests before it (a hung handler must not keep the socket). */
const CLOSE_AFTER_ANSWERS_MAX_MS = 30_000;

/**
 * The headless shell's transport: the same handler table as Electron IPC, over a WebSocket.
 * Authentication, Host and Origin are checked before the upgrade (see the HTTP server); this
 * speaks the contract and keeps every client within a memory budget: nothing a client sends,
 * or fails to read, can crash the engine or grow it without bound.
 */
export class WsTransport implements Disposable {
  private readonly limits: TransportLimits;
  private readonly wss: WebSocketServer;
  private readonly clients = new Set<Client>();
  private readonly sub: Disposable;
  private readonly table: HandlerTable;
  private readonly hub: SnapshotHub;
  private readonly opts: WsTransportOptions;
  private readonly flushTimer: NodeJS.Timeout;
  private readonly pingTimer: NodeJS.Timeout;
  /** The most a client has had queued at once: the stalled-reader test reads it. */
  peakBufferedBytes = 0;

  constructor(table: HandlerTable, hub: SnapshotHub, opts: WsTransportOptions = {}) {
    this.table = table;
    this.hub = hub;
    this.opts = opts;
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.wss = new WebSocketServer({ noServer: true, maxPayload: this.limits.maxFrameBytes, clientTracking: false });
    this.wss.on('error', (e) => this.internal(e));
    this.sub = hub.onEvent(({ event, payload }) => {
      const text = JSON.stringify({ kind: 'event', event, payload } satisfies ServerFrame);
      for (const c of this.clients) {
        if (event === 'snapshot') this.sendSnapshot(c, (payload as SnapshotEnvelope).topic, text);
        else if (event === 'rig') this.sendRig(c, payload as RigRelayEvent, text);
        else this.sendLogs(c, text, Array.isArray(payload) ? payload.length : 1);
      }
    });
    this.flushTimer = setInterval(() => this.flushAll(), 200);
    this.flushTimer.unref();
    this.pingTimer = setInterval(() => this.pingAll(), this.limits.pingMs);
    this.pingTimer.unref();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** True when a new connection would exceed the cap (the HTTP server answers 503). */
  get full(): boolean {
    return this.clients.size >= this.limits.maxClients;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private internal(e: unknown): void {
    try {
      this.opts.onInternal?.(e);
    } catch {
      // the reporter failing must not become the crash it reports
    }
  }

  private warn(message: string): void {
    try {
      this.opts.onWarn?.(message);
    } catch {
      // as above
    }
  }

  private accept(ws: WebSocket): void {
    const c: Client = { ws, waiting: new Map(), overSince: null, alive: true, inflight: 0, droppedLogLines: 0, closing: null };
    this.clients.add(c);
    ws.on('error', (e: NodeJS.ErrnoException) => {
      // ws closes the connection itself (1009 for an oversized frame, 1002 for a protocol error).
      if (e.code !== 'ECONNRESET' && e.code !== 'EPIPE') this.warn(`closed a client: ${e.message}`);
    });
    ws.on('close', () => this.clients.delete(c));
    ws.on('pong', () => (c.alive = true));
    ws.on('message', (data, isBinary) => this.onMessage(c, data, isBinary));
    for (const envelope of this.hub.current()) {
      this.sendSnapshot(c, envelope.topic, JSON.stringify({ kind: 'event', event: 'snapshot', payload: envelope } satisfies ServerFrame));
    }
  }

  /**
   * Closes for a fatal frame, but only after the requests that came before it (often in the same
   * burst, still running) are answered; nothing after it is read.
   */
  private closeAfterAnswers(c: Client, code: number, reason: string): void {
    if (c.closing) return;
    c.closing = { code, reason };
    if (c.inflight === 0) {
      c.ws.close(code, reason);
      return;
    }
    setTimeout(() => c.ws.close(code, reason), CLOSE_AFTER_ANSWERS_MAX_MS).unref();
  }

  private onMessage(c: Client, data: RawData, isBinary: boolean): void {
    try {
      if (c.closing) return;
      if (isBinary) {
        this.closeAfterAnswers(c, 1003, 'frames are JSON text');
        return;
      }
      const frame = parseClientFrame(String(data));
      if (frame.kind === 'fatal') {
        this.closeAfterAnswers(c, 1003, frame.reason);
        return;
      }
      if (frame.kind === 'refused') {
        this.send(c, JSON.stringify({ kind: 'result', id: frame.id, result: frame.result } satisfies ServerFrame));
        return;
      }
      if (c.inflight >= this.limits.maxInflight) {
        const busy = err('unavailable', 'Too many requests at once from this window: wait for the answers, then retry.');
        this.send(c, JSON.stringify({ kind: 'result', id: frame.id, result: busy } satisfies ServerFrame));
        return;
      }
      c.inflight++;
      dispatch(this.table, frame.method, frame.req, (e) => this.internal(e))
        .catch((e: unknown): Result<unknown> => {
          this.internal(e);
          return err('internal', 'Something went wrong inside the engine. The Logs page has the details.');
        })
        .then((result) => {
          c.inflight--;
          this.send(c, JSON.stringify({ kind: 'result', id: frame.id, result } satisfies ServerFrame));
          if (c.closing && c.inflight === 0) c.ws.close(c.closing.code, c.closing.reason);
        })
        .catch((e: unknown) => this.internal(e));
    } catch (e) {
      this.internal(e);
      c.ws.close(1011, 'internal error');
    }
  }

  private send(c: Client, text: string): void {
    if (c.ws.readyState !== c.ws.OPEN) return;
    try {
      c.ws.send(text);
    } catch (e) {
      this.internal(e);
      c.ws.terminate();
      return;
    }
    this.checkBudget(c);
  }

  private sendSnapshot(c: Client, topic: string, text: string): void {
    if (c.ws.bufferedAmount >= this.limits.softBytes) {
      c.waiting.set(topic, text);
      this.checkBudget(c);
      return;
    }
    this.flush(c);
    this.send(c, text);
  }

  /** A rig's relayed snapshots and relay state wait like the panel's own (latest per rig and topic); its logs are best effort. */
  private sendRig(c: Client, ev: RigRelayEvent, text: string): void {
    if (ev.kind === 'logs') this.sendLogs(c, text, ev.payload.length);
    else this.sendSnapshot(c, `rig:${ev.rigId}:${ev.kind === 'state' ? ':state' : ev.payload.topic}`, text);
  }

  private sendLogs(c: Client, text: string, lines: number): void {
    // Live log lines are best effort: the Logs page re-reads them with logs.recent.
    if (c.ws.bufferedAmount >= this.limits.softBytes) {
      c.droppedLogLines += lines;
      this.checkBudget(c);
      return;
    }
    this.send(c, text);
  }

  private flush(c: Client): void {
    if (c.waiting.size === 0 || c.ws.bufferedAmount >= this.limits.softBytes) return;
    const texts = [...c.waiting.values()];
    c.waiting.clear();
    for (const t of texts) this.send(c, t);
  }

  private checkBudget(c: Client): void {
    const queued = c.ws.bufferedAmount;
    if (queued > this.peakBufferedBytes) this.peakBufferedBytes = queued;
    if (queued > this.limits.hardBytes) return this.drop(c, `it has ${Math.round(queued / 1024)} KiB unread (limit ${Math.round(this.limits.hardBytes / 1024)} KiB)`);
    if (queued < this.limits.softBytes) c.overSince = null;
    else c.overSince ??= Date.now();
  }

  private drop(c: Client, why: string): void {
    this.warn(`closed a client that stopped reading: ${why}${c.droppedLogLines ? `; ${c.droppedLogLines} live log lines were skipped for it` : ''}`);
    this.clients.delete(c);
    c.waiting.clear();
    c.ws.terminate();
  }

  private flushAll(): void {
    const now = Date.now();
    for (const c of [...this.clients]) {
      try {
        this.flush(c);
        this.checkBudget(c);
        if (c.overSince !== null && now - c.overSince > this.limits.overBudgetMs) this.drop(c, `over its send budget for ${Math.round((now - c.overSince) / 1000)} s`);
      } catch (e) {
        this.internal(e);
      }
    }
  }

  private pingAll(): void {
    for (const c of [...this.clients]) {
      if (!c.alive) {
        this.warn('closed a client that did not answer a ping (dead connection)');
        this.clients.delete(c);
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      try {
        c.ws.ping();
      } catch {
        c.ws.terminate();
      }
    }
  }

  async dispose(): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.pingTimer);
    void this.sub.dispose();
    for (const c of this.clients) c.ws.terminate();
    this.clients.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
