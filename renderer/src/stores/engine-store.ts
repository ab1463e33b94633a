import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { AppInfo, EngineApi, SnapshotEnvelope, SnapshotTopic, SnapshotTopics } from '../../../shared/api.ts';
import type { LogLine } from '../../../shared/logs.ts';
import { createApi, type ApiFactory, type ConnectionDetail, type ConnectionState } from '../lib/api.ts';
import { RigScopedApi } from '../lib/rig-api.ts';

const MAX_LOG_LINES = 5000;

export interface EngineState {
  connection: ConnectionState;
  /** Retry progress while the engine is away (for the banner). */
  detail: ConnectionDetail;
  info: AppInfo | null;
  /** A topic absent here has not been received yet: pages show loading, not an empty state. */
  snapshots: Partial<{ [T in SnapshotTopic]: SnapshotEnvelope<T> }>;
  logs: LogLine[];
}

export type EngineStore = UseBoundStore<StoreApi<EngineState>>;

export function newEngineStore(): EngineStore {
  return create<EngineState>(() => ({ connection: 'connecting', detail: { attempts: 0, nextRetryAt: null }, info: null, snapshots: {}, logs: [] }));
}

/** The read model of this panel's own engine: snapshots replace older versions, never merge with local guesses. */
export const usePanel = newEngineStore();

let api: EngineApi | null = null;

/** The rig whose full panel is open (docs/fleet.md), its own store and its relayed api; null: this panel's engine. */
interface ScopeState {
  rig: { id: string; name: string } | null;
  store: EngineStore | null;
  api: RigScopedApi | null;
}

/** Which engine the pages show: this panel's, or one rig's through the panel's relay. */
export const useScope = create<ScopeState>(() => ({ rig: null, store: null, api: null }));

/**
 * The engine the pages show: the open rig's store while a rig's full panel is open, else this
 * panel's. Every page reads through this, so every page is scoped to the rig without knowing it.
 */
export function useEngine<T>(selector: (s: EngineState) => T): T {
  const store = useScope((s) => s.store) ?? usePanel;
  return store(selector);
}

/** The api of the engine the pages show (the open rig's relay, or this panel's engine). */
export function engineApi(): EngineApi {
  return useScope.getState().api ?? panelApi();
}

/** This panel's own engine, whatever is open: the Fleet page and Settings > Rigs act here. */
export function panelApi(): EngineApi {
  if (!api) throw new Error('engine store not connected');
  return api;
}

let unsubscribePanel: (() => void) | null = null;

/** Opens a rig's full panel: every page now reads and acts on that rig, through this panel's engine. */
export function openRig(rig: { id: string; name: string }): void {
  closeRig();
  const panel = panelApi();
  let relay: RigScopedApi | null = null;
  const store = newEngineStore();
  bindEngineStore(store, (onState) => (relay = new RigScopedApi(panel, rig.id, onState)).start());
  // A panel connection that comes back asks for a fresh relay (its replay refills the rig's store).
  unsubscribePanel = usePanel.subscribe((s, prev) => {
    if (s.connection === 'open' && prev.connection !== 'open') relay?.rewatch();
  });
  useScope.setState({ rig, store, api: relay });
}

/** Back to this panel's own engine. */
export function closeRig(): void {
  unsubscribePanel?.();
  unsubscribePanel = null;
  useScope.getState().api?.dispose();
  useScope.setState({ rig: null, store: null, api: null });
}

/**
 * Wires a transport to a store. Versions rise per topic within one engine run; a restarted
 * engine starts again at 1. Each connection begins with a replay of every current snapshot, so
 * the first snapshot per topic on a connection is taken as is (a restarted engine's state
 * replaces the old one), and later ones only when their version is newer.
 */
export function bindEngineStore(store: EngineStore, factory: ApiFactory): EngineApi {
  let seenOnThisConnection = new Set<SnapshotTopic>();
  let client: EngineApi | null = null;
  const refreshInfo = async () => {
    if (!client) return;
    const r = await client.invoke('app.info', null);
    if (r.ok) store.setState({ info: r.value });
  };
  client = factory((connection, detail) => {
    if (connection === 'open') seenOnThisConnection = new Set();
    store.setState({ connection, detail });
    // Deferred: a transport may report 'open' before the factory has returned the client.
    if (connection === 'open') queueMicrotask(() => void refreshInfo());
  });
  client.on('snapshot', (env) => {
    const first = !seenOnThisConnection.has(env.topic);
    seenOnThisConnection.add(env.topic);
    store.setState((s) => {
      const prev = s.snapshots[env.topic];
      if (!first && prev && prev.version >= env.version) return s;
      return { snapshots: { ...s.snapshots, [env.topic]: env } };
    });
  });
  client.on('logs', (batch) => {
    store.setState((s) => {
      const logs = s.logs.concat(batch);
      return { logs: logs.length > MAX_LOG_LINES ? logs.slice(logs.length - MAX_LOG_LINES) : logs };
    });
  });
  return client;
}

/** Connects once at start-up. */
export function connectEngine(factory: ApiFactory = createApi): EngineApi {
  api ??= bindEngineStore(usePanel, factory);
  return api;
}

export function useSnapshot<T extends SnapshotTopic>(topic: T): SnapshotTopics[T] | undefined {
  return useEngine((s) => s.snapshots[topic]?.data as SnapshotTopics[T] | undefined);
}

/** A topic of this panel's own engine, whatever rig is open (the fleet, the theme). */
export function usePanelSnapshot<T extends SnapshotTopic>(topic: T): SnapshotTopics[T] | undefined {
  return usePanel((s) => s.snapshots[topic]?.data as SnapshotTopics[T] | undefined);
}
