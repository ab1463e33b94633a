// Kept-alive connections to `http:` serves, one idle list per host:port (issue 30). On a fresh
// connection a request's bytes wait in Node's buffer until the connect event, and in a burst of
// routed requests the miner's thread reaches those events only after it has built every request
// of the burst: no request reached the serve before the last one was ready (the bench measured a
// first token 1.8x the serve's own at 64 streams). On a kept-alive socket the write goes out at once.
//
// An idle socket is dropped after SOCKET_IDLE_MS, below uvicorn's 5 s keep-alive (sglang's
// server), so the serve rarely closes one under us; when it does, the request on it fails before
// any byte comes back and serve-socket.ts retries it once on a fresh connection.
//
// Kept warm: while the serve had a request within WARM_AFTER_USE_MS, a connection dropped for its
// idle time is replaced by a fresh one at once, so a burst after a pause of a few seconds still
// meets connected sockets (a write on a connecting socket waits for the connect; round 14 in
// docs/performance.md measured the cost). Only the pool's own timer replaces one: a connection the
// serve closed or refused is not reopened, so a serve that will not keep connections never gets a
// loop of reconnects, and the warm set decays to nothing a minute after the last request.
import net from 'node:net';
import { systemClock, type Clock } from '../lib/clock.ts';

/** One read buffer per connection: large enough that a fast loopback body takes few reads. */
export const READ_BUFFER_BYTES = 64 * 1024;
/** Idle sockets are closed after this (uvicorn closes them at 5 s; undici's own default is 4 s). */
export const SOCKET_IDLE_MS = 4_000;
/** Idle sockets kept per serve; more than the miner's usual in-flight count, fewer than a leak. */
export const MAX_IDLE_PER_SERVE = 256;
/** Idle connections are replaced as they time out for this long after the serve's last request. */
export const WARM_AFTER_USE_MS = 60_000;

/**
 * A connection whose reads all land in `buffer` (net.connect's `onread`). Its event handlers are
 * swapped per request, so a kept-alive socket never collects listeners.
 */
export interface ServeConnection {
  readonly socket: net.Socket;
  /** Where it goes: a replacement kept warm goes to the same place. */
  readonly host: string;
  readonly port: number;
  readonly buffer: Buffer;
  /**
   * It waited in the pool (after a request, or opened there to keep the serve warm): the serve may
   * have closed it meanwhile, so a request on it that fails before any answer is retried once.
   */
  parked: boolean;
  /** The current reader of `buffer[0, n)`; false pauses the socket (the bytes are not all read yet). */
  onRead: (n: number) => boolean;
  onEnd: () => void;
  onClose: () => void;
  onError: (e: Error) => void;
  /** No byte either way for the socket's timeout (set per request with `socket.setTimeout(ms)`). */
  onTimeout: () => void;
}

const ignore = (): void => undefined;

/** A new connection to host:port with no reader yet (the caller sets its handlers before any read). */
export function openServeConnection(host: string, port: number): ServeConnection {
  const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  const socket = net.connect({ host, port, onread: { buffer, callback: (n) => conn.onRead(n) } });
  // Until a request owns it, bytes from the serve are a fault: the connection is closed, and whoever takes it next opens another.
  const unasked = (): boolean => {
    socket.destroy();
    return false;
  };
  const conn: ServeConnection = { socket, host, port, buffer, parked: false, onRead: unasked, onEnd: ignore, onClose: ignore, onError: ignore, onTimeout: ignore };
  socket.setNoDelay(true);
  socket.on('end', () => conn.onEnd());
  socket.on('close', () => conn.onClose());
  socket.on('error', (e) => conn.onError(e));
  socket.on('timeout', () => conn.onTimeout());
  return conn;
}

/** Where a `/generate` URL's socket goes, and its idle list's key; null for anything but `http:`. */
function socketTarget(url: URL): SocketTarget | null {
  if (url.protocol !== 'http:') return null;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? 80 : Number(url.port);
  return { host, port, key: `${host}:${port}` };
}

export interface SocketTarget {
  readonly host: string;
  readonly port: number;
  readonly key: string;
}

/** A serve's `/generate`, parsed once: shared by every call to that serve, so never mutated. */
export interface GenerateTarget {
  readonly url: URL;
  /** Null for anything but `http:` (those go through Node's client). */
  readonly socket: SocketTarget | null;
  /** The request line and host header of a POST to it. */
  readonly head: string;
}

// Serve addresses are a handful per engine; the bound only keeps a caller that makes them up from
// growing the map.
const MAX_TARGETS = 32;
const targets = new Map<string, GenerateTarget>();

/**
 * `serveUrl`'s `/generate` target. Every request parsed its serve's address twice (the reservation,
 * then the call), in the burst's intake on the miner's thread (docs/performance.md, round 20).
 * Throws as `new URL` does on an address that is not one; a failure is not kept.
 */
export function generateTarget(serveUrl: string): GenerateTarget {
  const known = targets.get(serveUrl);
  if (known) return known;
  const url = new URL('/generate', serveUrl);
  const t: GenerateTarget = { url, socket: socketTarget(url), head: `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n` };
  if (targets.size >= MAX_TARGETS) targets.clear();
  targets.set(serveUrl, t);
  return t;
}

/**
 * A connection set aside for one request as its frame arrives, so that its connect is done (and
 * the serve has accepted it) by the time the prompt is built: in a burst after an idle spell the
 * serve otherwise meets every connection at once, mid-work. Taken once by the request's first
 * call, or given back to the pool.
 */
export class ReservedConnection {
  private conn: ServeConnection | null;
  private readonly pool: ServeSocketPool;
  readonly key: string;

  constructor(pool: ServeSocketPool, key: string, conn: ServeConnection) {
    this.pool = pool;
    this.key = key;
    this.conn = conn;
  }

  /** The connection, once, if it goes to `key`; a connection to another serve goes back to the pool. */
  take(key: string): ServeConnection | null {
    if (key !== this.key) {
      this.giveBack();
      return null;
    }
    const c = this.conn;
    this.conn = null;
    // Refused or closed while the prompt was built: the call opens its own and meets the real error.
    if (c && !usable(c)) {
      c.socket.destroy();
      return null;
    }
    return c;
  }

  /** Unused (the request failed or ended before its call): kept for the next request. */
  giveBack(): void {
    const c = this.conn;
    this.conn = null;
    if (c) this.pool.release(this.key, c);
  }
}

function usable(c: ServeConnection): boolean {
  const s = c.socket;
  return !s.destroyed && !s.readableEnded && s.writable;
}

interface Idle {
  conn: ServeConnection;
  timer: unknown;
}

export interface ServeSocketPoolOptions {
  clock?: Clock;
  idleMs?: number;
  maxIdlePerServe?: number;
  /** How long after a serve's last request its timed-out idle connections are replaced (0: never). */
  warmMs?: number;
}

export class ServeSocketPool {
  private readonly idle = new Map<string, Idle[]>();
  private readonly clock: Clock;
  private readonly idleMs: number;
  private readonly maxIdle: number;
  private readonly warmMs: number;
  /** When each serve (host:port) last had a connection taken for a request, on the pool's clock. */
  private readonly lastUse = new Map<string, number>();
  private closed = false;

  constructor(o: ServeSocketPoolOptions = {}) {
    this.clock = o.clock ?? systemClock;
    this.idleMs = o.idleMs ?? SOCKET_IDLE_MS;
    this.maxIdle = o.maxIdlePerServe ?? MAX_IDLE_PER_SERVE;
    this.warmMs = o.warmMs ?? WARM_AFTER_USE_MS;
  }

  /** Idle connections kept for `key` (host:port). */
  idleCount(key: string): number {
    return this.idle.get(key)?.length ?? 0;
  }

  /** A kept connection to the serve at `serveUrl`, else a new one, set aside for one request; null for `https:`. */
  reserve(serveUrl: string): ReservedConnection | null {
    let t: SocketTarget | null;
    try {
      t = generateTarget(serveUrl).socket;
    } catch {
      return null; // the call itself says what is wrong with the address
    }
    if (!t || this.closed) return null;
    return new ReservedConnection(this, t.key, this.take(t.key) ?? openServeConnection(t.host, t.port));
  }

  /** The most recently kept connection to `key` (the least likely to be closed by now), or null; the serve counts as in use. */
  take(key: string): ServeConnection | null {
    this.lastUse.set(key, this.clock.now());
    const list = this.idle.get(key);
    while (list && list.length > 0) {
      const it = list.pop()!;
      this.clock.clearTimeout(it.timer);
      if (usable(it.conn)) return it.conn;
      it.conn.socket.destroy();
    }
    return null;
  }

  /**
   * Keeps a connection whose last response ended cleanly (its whole body read, nothing after it,
   * no `connection: close`) for the next request to `key`. The socket must still be reading (the
   * caller's read callback returns true), so a close by the serve is seen while it is idle, not
   * by the next request. The caller must not touch it again. (The pool keeps its fresh warm
   * replacements the same way.)
   */
  release(key: string, conn: ServeConnection): void {
    const s = conn.socket;
    const list = this.idle.get(key) ?? [];
    if (this.closed || !usable(conn) || list.length >= this.maxIdle) {
      s.destroy();
      return;
    }
    conn.parked = true;
    const it: Idle = { conn, timer: null };
    const drop = (): void => {
      const i = list.indexOf(it);
      if (i >= 0) list.splice(i, 1);
      this.clock.clearTimeout(it.timer);
      s.destroy();
    };
    // While idle: the serve closing it, an error, or bytes nobody asked for all end it.
    conn.onRead = () => {
      drop();
      return false;
    };
    conn.onEnd = drop;
    conn.onClose = drop;
    conn.onError = drop;
    conn.onTimeout = drop;
    s.setTimeout(0);
    it.timer = this.clock.setTimeout(() => {
      drop();
      if (this.clock.now() - (this.lastUse.get(key) ?? -Infinity) < this.warmMs) this.release(key, openServeConnection(conn.host, conn.port));
    }, this.idleMs);
    list.push(it);
    this.idle.set(key, list);
  }

  /** Closes every idle connection; later releases close theirs. */
  destroy(): void {
    this.closed = true;
    for (const list of this.idle.values()) {
      for (const it of list.splice(0)) {
        this.clock.clearTimeout(it.timer);
        it.conn.socket.destroy();
      }
    }
    this.idle.clear();
    this.lastUse.clear();
  }
}
