// The one contract between engine and UI. Method and event names live here and nowhere else.
import type { HardwareReport } from './hardware.ts';
import type { LogLine } from './logs.ts';
import type { Result } from './result.ts';
import type { Settings, SettingsPatch } from './settings.ts';

export interface AppInfo {
  name: string;
  version: string;
  shell: 'electron' | 'headless';
  network: Settings['network'];
  dataDir: string;
  platform: string;
  node: string;
}

/** Invokes: request -> Result<response>. The renderer names an action and enumerated options, never paths, argv or keys. */
export interface InvokeMap {
  'app.info': { req: null; res: AppInfo };
  'hardware.report': { req: { refresh: boolean }; res: HardwareReport };
  'settings.get': { req: null; res: Settings };
  'settings.update': { req: SettingsPatch; res: Settings };
  'logs.recent': { req: { source?: string; limit?: number; query?: string }; res: { lines: LogLine[]; sources: string[] } };
  'diagnostics.export': { req: null; res: { path: string; bytes: number } };
}

export type InvokeMethod = keyof InvokeMap;
export type InvokeRequest<M extends InvokeMethod> = InvokeMap[M]['req'];
export type InvokeResponse<M extends InvokeMethod> = InvokeMap[M]['res'];

export const INVOKE_METHODS: readonly InvokeMethod[] = ['app.info', 'hardware.report', 'settings.get', 'settings.update', 'logs.recent', 'diagnostics.export'];

/** Snapshot topics: each engine publishes immutable snapshots with a rising version. */
export interface SnapshotTopics {
  hardware: HardwareReport | null;
  settings: Settings;
}
export type SnapshotTopic = keyof SnapshotTopics;

export interface SnapshotEnvelope<T extends SnapshotTopic = SnapshotTopic> {
  topic: T;
  version: number;
  data: SnapshotTopics[T];
}

export interface EventMap {
  snapshot: SnapshotEnvelope;
  logs: LogLine[];
}
export type EventName = keyof EventMap;

/** What both transports offer the renderer. */
export interface EngineApi {
  invoke<M extends InvokeMethod>(method: M, req: InvokeRequest<M>): Promise<Result<InvokeResponse<M>>>;
  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void;
}

/** Wire frames of the WebSocket transport (Electron IPC carries the same payloads). */
export type ClientFrame = { kind: 'invoke'; id: number; method: string; req: unknown };
export type ServerFrame =
  | { kind: 'result'; id: number; result: Result<unknown> }
  | { kind: 'event'; event: EventName; payload: unknown };

export const IPC_INVOKE_CHANNEL = 'engy:invoke';
export const IPC_EVENT_CHANNEL = 'engy:event';
