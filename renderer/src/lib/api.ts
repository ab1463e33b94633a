import type { ClientFrame, EngineApi, EventMap, EventName, InvokeMethod, InvokeRequest, InvokeResponse, ServerFrame } from '../../../shared/api.ts';
import type { Result } from '../../../shared/result.ts';

declare global {
  interface Window {
    /** Exposed by the Electron preload; absent in a browser talking to the headless engine. */
    engy?: {
      invoke(method: string, req: unknown): Promise<Result<unknown>>;
      on(listener: (e: { event: EventName; payload: unknown }) => void): () => void;
    };
  }
}

type Listener = (payload: unknown) => void;
/** `connecting` before the first open; `closed` from a loss until the next open (it retries by itself). */
export type ConnectionState = 'connecting' | 'open' | 'closed';

/** What the connection banner shows while the engine is away. */
export interface ConnectionDetail {
  /** Failed attempts since the connection was last open. */
  attempts: number;
  /** When the next attempt starts (ms since epoch), or null while one is under way. */
  nextRetryAt: number | null;
  /** The engine answers but refuses this page's cookie (its token was rotated): only a new URL helps. */
  refused?: boolean;
  /** Desktop: the engine process stopped (why) and main is restarting it; the window stays. */
  restarting?: string;
}

/** The slice of the browser WebSocket the client uses: injected so the store can be tested in Node. */
export interface SocketLike {
  readyState: number;
  onopen: (() => void) | null;
  onmessage: ((m: { data: unknown }) => void) | null;
  onclose: (() => void) | null;
  send(text: string): void;
  close(): void;
}

const OPEN = 1;

/** WebSocket transport to the headless engine; reconnects with backoff and re-sends nothing (invokes fail fast). */
export class WsClient implements EngineApi {
  private ws: SocketLike | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (r: Result<unknown>) => void>();
  private readonly listeners = new Map<EventName, Set<Listener>>();
  private attempt = 0;
  private readonly url: string;
  private readonly open: (url: string) => SocketLike;
  private readonly schedule: (fn: () => void, ms: number) => void;
  /** Asks the engine over HTTP whether it refuses this page's credentials (true) after a failed reconnect. */
  private readonly refusedProbe: () => Promise<boolean>;
  onState: (s: ConnectionState, detail: ConnectionDetail) => void = () => {};

  constructor(
    url: string,
    open: (url: string) => SocketLike,
    schedule: (fn: () => void, ms: number) => void = (fn, ms) => void setTimeout(fn, ms),
    refusedProbe: () => Promise<boolean> = async () => false,
  ) {
    this.url = url;
    this.open = open;
    this.schedule = schedule;
    this.refusedProbe = refusedProbe;
  }

  /** Starts the first connection; separate from the constructor so onState is set before it fires. */
  start(): this {
    this.connect();
    return this;
  }

  private connect(): void {
    this.onState(this.attempt === 0 ? 'connecting' : 'closed', { attempts: this.attempt, nextRetryAt: null });
    const ws = this.open(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.onState('open', { attempts: 0, nextRetryAt: null });
    };
    ws.onmessage = (m) => {
      let frame: ServerFrame;
      try {
        frame = JSON.parse(String(m.data)) as ServerFrame;
      } catch {
        return;
      }
      if (frame.kind === 'result') {
        this.pending.get(frame.id)?.(frame.result);
        this.pending.delete(frame.id);
      } else for (const l of this.listeners.get(frame.event) ?? []) l(frame.payload);
    };
    ws.onclose = () => {
      for (const [, resolve] of this.pending)
        resolve({ ok: false, error: { code: 'unavailable', message: 'Lost the connection to the engine. It reconnects by itself; try again once the banner is gone.' } });
      this.pending.clear();
      const delay = Math.min(10_000, 500 * 2 ** this.attempt++) * (0.8 + Math.random() * 0.4);
      const detail = { attempts: this.attempt, nextRetryAt: Date.now() + delay };
      this.onState('closed', detail);
      this.schedule(() => this.connect(), delay);
      // A socket refused over and over may mean a rotated token rather than an engine that is down.
      if (this.attempt >= 2) {
        void this.refusedProbe().then(
          (refused) => {
            if (refused && this.ws === ws && ws.readyState !== OPEN) this.onState('closed', { ...detail, refused: true });
          },
          () => undefined,
        );
      }
    };
  }

  invoke<M extends InvokeMethod>(method: M, req: InvokeRequest<M>): Promise<Result<InvokeResponse<M>>> {
    return new Promise((resolve) => {
      if (!this.ws || this.ws.readyState !== OPEN) {
        resolve({ ok: false, error: { code: 'unavailable', message: 'Not connected to the engine right now: it reconnects by itself; try again once the banner is gone.' } });
        return;
      }
      const id = this.nextId++;
      this.pending.set(id, resolve as (r: Result<unknown>) => void);
      this.ws.send(JSON.stringify({ kind: 'invoke', id, method, req } satisfies ClientFrame));
    });
  }

  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as Listener);
    return () => set.delete(listener as Listener);
  }
}

export class IpcClient implements EngineApi {
  private readonly bridge: NonNullable<Window['engy']>;
  constructor(bridge: NonNullable<Window['engy']>, onState?: (s: ConnectionState, detail: ConnectionDetail) => void) {
    this.bridge = bridge;
    // Main says when the engine process dies and comes back: the page shows it as the engine away.
    if (onState) {
      bridge.on((e) => {
        if (e.event !== 'engine') return;
        const st = e.payload as EventMap['engine'];
        if (st.state === 'running') onState('open', { attempts: 0, nextRetryAt: null });
        else if (st.state === 'restarting') onState('closed', { attempts: st.attempt, nextRetryAt: st.nextRetryAt, restarting: st.reason });
      });
    }
  }
  invoke<M extends InvokeMethod>(method: M, req: InvokeRequest<M>): Promise<Result<InvokeResponse<M>>> {
    return this.bridge.invoke(method, req) as Promise<Result<InvokeResponse<M>>>;
  }
  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void {
    return this.bridge.on((e) => {
      if (e.event === event) listener(e.payload as EventMap[E]);
    });
  }
}

export type ApiFactory = (onState: (s: ConnectionState, detail: ConnectionDetail) => void) => EngineApi;

/**
 * Takes `?token=` out of the address bar (the engine has set its cookie by now), so the token
 * does not sit in history, bookmarks or screenshots. Reconnects authenticate with the cookie.
 */
function forgetTokenInUrl(): void {
  const url = new URL(location.href);
  if (!url.searchParams.has('token')) return;
  url.searchParams.delete('token');
  history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
}

/**
 * Picks the transport by itself: the preload bridge in Electron, else a WebSocket back to the
 * serving engine. The state callback never fires before this returns (the caller stores the api first).
 */
export const createApi: ApiFactory = (onState) => {
  if (window.engy) {
    queueMicrotask(() => onState('open', { attempts: 0, nextRetryAt: null }));
    return new IpcClient(window.engy, onState);
  }
  forgetTokenInUrl();
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  // The browser socket has the shape the client uses (its handlers take an event the client ignores).
  const client = new WsClient(
    `${proto}//${location.host}/ws`,
    (url) => new WebSocket(url) as unknown as SocketLike,
    undefined,
    async () => (await fetch('./', { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' })).status === 401,
  );
  client.onState = onState;
  queueMicrotask(() => client.start());
  return client;
};
