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
export type ConnectionState = 'connecting' | 'open' | 'closed';

/** WebSocket transport to the headless engine; reconnects with backoff and re-sends nothing (invokes fail fast). */
class WsClient implements EngineApi {
  private ws: WebSocket | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (r: Result<unknown>) => void>();
  private readonly listeners = new Map<EventName, Set<Listener>>();
  private attempt = 0;
  private readonly url: string;
  onState: (s: ConnectionState) => void = () => {};

  constructor(url: string) {
    this.url = url;
    this.connect();
  }

  private connect(): void {
    this.onState('connecting');
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.onState('open');
    };
    ws.onmessage = (m) => {
      const frame = JSON.parse(String(m.data)) as ServerFrame;
      if (frame.kind === 'result') {
        this.pending.get(frame.id)?.(frame.result);
        this.pending.delete(frame.id);
      } else for (const l of this.listeners.get(frame.event) ?? []) l(frame.payload);
    };
    ws.onclose = () => {
      this.onState('closed');
      for (const [, resolve] of this.pending) resolve({ ok: false, error: { code: 'unavailable', message: 'Lost the connection to the engine. It will reconnect by itself; if not, check that the engine is running.' } });
      this.pending.clear();
      const delay = Math.min(10_000, 500 * 2 ** this.attempt++) * (0.8 + Math.random() * 0.4);
      setTimeout(() => this.connect(), delay);
    };
  }

  invoke<M extends InvokeMethod>(method: M, req: InvokeRequest<M>): Promise<Result<InvokeResponse<M>>> {
    return new Promise((resolve) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        resolve({ ok: false, error: { code: 'unavailable', message: 'Not connected to the engine yet. Wait a moment and try again.' } });
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

class IpcClient implements EngineApi {
  private readonly bridge: NonNullable<Window['engy']>;
  constructor(bridge: NonNullable<Window['engy']>) {
    this.bridge = bridge;
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

/** Picks the transport by itself: the preload bridge in Electron, else a WebSocket back to the serving engine. */
export function createApi(onState: (s: ConnectionState) => void): EngineApi {
  if (window.engy) {
    onState('open');
    return new IpcClient(window.engy);
  }
  const params = new URLSearchParams(location.search);
  const token = params.get('token') ?? sessionStorage.getItem('engy-token') ?? '';
  if (token) sessionStorage.setItem('engy-token', token);
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const client = new WsClient(`${proto}//${location.host}/ws?token=${encodeURIComponent(token)}`);
  client.onState = onState;
  return client;
}
