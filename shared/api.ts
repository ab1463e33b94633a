// The one contract between engine and UI. Method and event names live here and nowhere else.
import type { EarningsSnapshot } from './earnings.ts';
import type { HardwareReport } from './hardware.ts';
import type { LogLine } from './logs.ts';
import type { NotificationsSnapshot } from './notifications.ts';
import type { MinerRequestRecord, MinerSnapshot, SelfAuditRecord, SeriesHistoryResponse } from './miner.ts';
import type { CheckpointSnapshot, ServeSnapshot } from './serve.ts';
import type { ValidatorSnapshot } from './validator.ts';
import type { MinerKeyStatus, RegistrationMode, RegistrationStatusSnapshot, RegistrationSuccess, WalletListing } from './wallet.ts';
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
  'mining.start': { req: null; res: null };
  'mining.stop': { req: null; res: null };
  'validator.start': { req: null; res: null };
  'validator.stop': { req: null; res: null };
  'wallet.list': { req: null; res: WalletListing };
  /** The only answer that carries a secret: the new mnemonic, shown once for the user to write down. */
  'wallet.createHotkey': { req: { wallet: string; hotkey: string }; res: { ss58Address: string; mnemonic: string } };
  /** The secret (a mnemonic, or a 0x seed) travels once to the engine, which writes btcli files and forgets it. */
  'wallet.importHotkey': { req: { wallet: string; hotkey: string; secret: string }; res: { ss58Address: string } };
  'wallet.setMinerKey': { req: { key: string }; res: MinerKeyStatus };
  'wallet.registration': { req: null; res: RegistrationStatusSnapshot };
  /** The coldkey password travels once to the engine, unlocks the coldkey for this registration only, and is dropped. */
  'wallet.register': { req: { mode: RegistrationMode; limitTao: string | null; password: string }; res: RegistrationSuccess };
  /** The coldkey signs in a browser wallet extension: the engine serves a one-shot loopback signing page (see WalletView.signingUrl). */
  'wallet.registerWithBrowser': { req: { mode: RegistrationMode; limitTao: string | null }; res: RegistrationSuccess };
  /** Newest first; `since`/`until` (ms) filter on received time, `offset` pages. */
  'history.requests': { req: { outcome?: 'ok' | 'error' | 'cancelled'; limit?: number; offset?: number; since?: number; until?: number }; res: MinerRequestRecord[] };
  /** How many requests match the same filters (the pager's total). */
  'history.count': { req: { outcome?: 'ok' | 'error' | 'cancelled'; since?: number; until?: number }; res: { total: number } };
  /** Chart history from the database, downsampled to about `points` per series. */
  'history.series': { req: { windowMs: number; points?: number; prefix?: string }; res: SeriesHistoryResponse };
  'earnings.refresh': { req: null; res: EarningsSnapshot };
  'history.audits': { req: { limit?: number }; res: SelfAuditRecord[] };
  'checkpoint.refresh': { req: null; res: CheckpointSnapshot };
  /** Starts or resumes the download and answers at once; progress arrives on the checkpoint topic. */
  'checkpoint.download': { req: null; res: null };
  'checkpoint.cancel': { req: null; res: null };
}

export type InvokeMethod = keyof InvokeMap;
export type InvokeRequest<M extends InvokeMethod> = InvokeMap[M]['req'];
export type InvokeResponse<M extends InvokeMethod> = InvokeMap[M]['res'];

export const INVOKE_METHODS: readonly InvokeMethod[] = [
  'app.info',
  'hardware.report',
  'settings.get',
  'settings.update',
  'logs.recent',
  'diagnostics.export',
  'mining.start',
  'mining.stop',
  'validator.start',
  'validator.stop',
  'wallet.list',
  'wallet.createHotkey',
  'wallet.importHotkey',
  'wallet.setMinerKey',
  'wallet.registration',
  'wallet.register',
  'wallet.registerWithBrowser',
  'history.requests',
  'history.count',
  'history.series',
  'earnings.refresh',
  'history.audits',
  'checkpoint.refresh',
  'checkpoint.download',
  'checkpoint.cancel',
];

/** The wallet as the UI sees it: addresses and statuses, never a secret. */
export interface WalletView {
  listing: WalletListing | null;
  minerKey: MinerKeyStatus;
  registration: RegistrationStatusSnapshot | null;
  registrationError: string | null;
  /** While a browser-wallet registration waits for its signature: the one-shot loopback page to open. */
  signingUrl: string | null;
}

/** Snapshot topics: each engine publishes immutable snapshots with a rising version. */
export interface SnapshotTopics {
  hardware: HardwareReport | null;
  settings: Settings;
  serve: ServeSnapshot | null;
  checkpoint: CheckpointSnapshot | null;
  /** The first gateway worker (the Mine page's default view). */
  miner: MinerSnapshot | null;
  /** Every gateway worker: one per managed engine, one for an external serve. */
  miners: MinerSnapshot[];
  validator: ValidatorSnapshot | null;
  wallet: WalletView;
  earnings: EarningsSnapshot;
  notifications: NotificationsSnapshot;
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
