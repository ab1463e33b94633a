import { create } from 'zustand';
import type { AppInfo, EngineApi, SnapshotEnvelope, SnapshotTopic, SnapshotTopics } from '../../../shared/api.ts';
import type { LogLine } from '../../../shared/logs.ts';
import { createApi, type ConnectionState } from '../lib/api.ts';

const MAX_LOG_LINES = 5000;

interface EngineState {
  connection: ConnectionState;
  info: AppInfo | null;
  snapshots: Partial<{ [T in SnapshotTopic]: SnapshotEnvelope<T> }>;
  logs: LogLine[];
}

/** The read model of the engine: snapshots replace older versions, never merge with local guesses. */
export const useEngine = create<EngineState>(() => ({ connection: 'connecting', info: null, snapshots: {}, logs: [] }));

let api: EngineApi | null = null;

export function engineApi(): EngineApi {
  if (!api) throw new Error('engine store not connected');
  return api;
}

/** Connects once at start-up. */
export function connectEngine(): EngineApi {
  if (api) return api;
  api = createApi((connection) => {
    useEngine.setState({ connection });
    if (connection === 'open') void refreshInfo();
  });
  api.on('snapshot', (env) => {
    useEngine.setState((s) => {
      const prev = s.snapshots[env.topic];
      if (prev && prev.version >= env.version && s.connection === 'open') return s;
      return { snapshots: { ...s.snapshots, [env.topic]: env } };
    });
  });
  api.on('logs', (batch) => {
    useEngine.setState((s) => {
      const logs = s.logs.concat(batch);
      return { logs: logs.length > MAX_LOG_LINES ? logs.slice(logs.length - MAX_LOG_LINES) : logs };
    });
  });
  return api;
}

async function refreshInfo(): Promise<void> {
  const r = await engineApi().invoke('app.info', null);
  if (r.ok) useEngine.setState({ info: r.value });
}

export function useSnapshot<T extends SnapshotTopic>(topic: T): SnapshotTopics[T] | undefined {
  return useEngine((s) => s.snapshots[topic]?.data as SnapshotTopics[T] | undefined);
}
