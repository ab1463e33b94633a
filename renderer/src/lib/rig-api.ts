// One rig's engine as the pages see it while its full panel is open (docs/fleet.md): the same EngineApi
// as the panel's own, carried by this panel's engine. Invokes go as fleet.rigInvoke naming the rig by
// id, snapshots and logs come back on the `rig` event; the rig's token never reaches this page.
import type { EngineApi, EventMap, EventName, InvokeMethod, InvokeRequest, InvokeResponse } from '../../../shared/api.ts';
import type { Result } from '../../../shared/result.ts';
import type { ConnectionDetail, ConnectionState } from './api.ts';

/** The panel's engine drops a watch not renewed for a minute; renewing well inside it keeps the rig open. */
export const WATCH_RENEW_MS = 20_000;

type Listener = (payload: unknown) => void;

export class RigScopedApi implements EngineApi {
  private readonly panel: EngineApi;
  readonly rigId: string;
  private readonly onState: (s: ConnectionState, detail: ConnectionDetail) => void;
  private readonly listeners = new Map<EventName, Set<Listener>>();
  private readonly every: (fn: () => void, ms: number) => () => void;
  private stopTimer: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;
  private disposed = false;

  constructor(
    panel: EngineApi,
    rigId: string,
    onState: (s: ConnectionState, detail: ConnectionDetail) => void,
    every: (fn: () => void, ms: number) => () => void = (fn, ms) => {
      const t = setInterval(fn, ms);
      return () => clearInterval(t);
    },
  ) {
    this.panel = panel;
    this.rigId = rigId;
    this.onState = onState;
    this.every = every;
  }

  /** Subscribes to the rig's relayed events and asks the panel for a fresh relay (its replay fills the store). */
  start(): this {
    this.unsubscribe = this.panel.on('rig', (ev) => {
      if (this.disposed || ev.rigId !== this.rigId) return;
      if (ev.kind === 'state') this.onState(ev.state === 'open' ? 'open' : 'closed', { attempts: 0, nextRetryAt: null });
      else for (const l of this.listeners.get(ev.kind === 'snapshot' ? 'snapshot' : 'logs') ?? []) l(ev.payload);
    });
    this.rewatch();
    this.stopTimer = this.every(() => void this.watch(false), WATCH_RENEW_MS);
    return this;
  }

  /** A fresh relay: the rig replays every snapshot, as a new connection does. */
  rewatch(): void {
    void this.watch(true);
  }

  private async watch(fresh: boolean): Promise<void> {
    if (this.disposed) return;
    const r = await this.panel.invoke('fleet.watch', { id: this.rigId, fresh });
    // A refused watch (the rig was removed, the panel is away) shows as the rig's engine away.
    if (!r.ok && !this.disposed) this.onState('closed', { attempts: 1, nextRetryAt: null });
  }

  invoke<M extends InvokeMethod>(method: M, req: InvokeRequest<M>): Promise<Result<InvokeResponse<M>>> {
    return this.panel.invoke('fleet.rigInvoke', { id: this.rigId, method, req }) as Promise<Result<InvokeResponse<M>>>;
  }

  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as Listener);
    return () => set.delete(listener as Listener);
  }

  dispose(): void {
    this.disposed = true;
    this.stopTimer?.();
    this.unsubscribe?.();
    this.listeners.clear();
  }
}
