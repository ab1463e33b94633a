import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { AppInfo, EngineApi, SnapshotEnvelope, SnapshotTopic, SnapshotTopics } from '../../../shared/api.ts';
import type { LogLine } from '../../../shared/logs.ts';
import { createApi, type ApiFactory, type ConnectionDetail, type ConnectionState } from '../lib/api.ts';

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

/** The read model of the engine: snapshots replace older versions, never merge with local guesses. */
export const useEngine = newEngineStore();

let api: EngineApi | null = null;

export function engineApi(): EngineApi {
  if (!api) throw new Error('engine store not connected');
  return api;
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
  api ??= bindEngineStore(useEngine, factory);
  return api;
}

export function useSnapshot<T extends SnapshotTopic>(topic: T): SnapshotTopics[T] | undefined {
  return useEngine((s) => s.snapshots[topic]?.data as SnapshotTopics[T] | undefined);
}

