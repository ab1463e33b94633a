// The one contract between engine and UI. Method and event names live here and nowhere else.
import type { EarningsSnapshot } from './earnings.ts';
import type { FleetSnapshot, RigAction, RigActionResult, RigConfig, RigRelayEvent } from './fleet.ts';
import type { HardwareAlternative, HardwareReport } from './hardware.ts';
import type { LogLine } from './logs.ts';
import type { AlertWebhookStatus, NotificationsSnapshot } from './notifications.ts';
import type { MinerRequestRecord, MinerSnapshot, SelfAuditRecord, SeriesHistoryResponse } from './miner.ts';
import type { CheckpointSnapshot, RuntimeReport, ServeSnapshot } from './serve.ts';
import type { CheckpointFolderVerdict, SglangSetupSnapshot } from './sglang-setup.ts';
import type { ValidatorSnapshot } from './validator.ts';
import type { CreatedColdkeyView, FaucetView, MinerKeyStatus, MinerKeyVerification, RegistrationMode, RegistrationStatusSnapshot, RegistrationSuccess, WalletListing } from './wallet.ts';
import type { Result } from './result.ts';
import type { Settings, SettingsPatch } from './settings.ts';
import type { MiningRunSummary, PreflightSnapshot, RehearsalResult } from './preflight.ts';
import type { TauPriceSnapshot } from './price.ts';

/**
 * The contract's version: raised whenever a method, a topic or a snapshot's shape changes in a way an
 * older peer cannot read. A fleet panel compares it with each rig's (app.info, --print-access) and says
 * which side to update.
 */
export const CONTRACT_VERSION = 1;

export interface AppInfo {
  name: string;
  version: string;
  /** CONTRACT_VERSION of the engine that answered (absent from engines older than the fleet). */
  contract?: number;
  shell: 'electron' | 'headless';
  network: Settings['network'];
  dataDir: string;
  platform: string;
  node: string;
}

/** The desktop app's updater as Settings shows it; null on a headless engine (reinstall the package to update). */
export interface UpdateView {
  currentVersion: string;
  autoUpdate: boolean;
  state: 'disabled' | 'idle' | 'checking' | 'available' | 'downloading' | 'downloaded' | 'draining' | 'installing' | 'error';
  /** The version on offer or downloaded, when there is one. */
  version: string | null;
  /** Download progress, 0..100, while downloading. */
  percent: number | null;
  /** The updater's one sentence ("Update 0.2.0 available: download it from Settings."). */
  message: string;
}

/** Invokes: request -> Result<response>. The renderer names an action and enumerated options, never paths, argv or keys. */
export interface InvokeMap {
  'app.info': { req: null; res: AppInfo };
  'hardware.report': { req: { refresh: boolean }; res: HardwareReport };
  'settings.get': { req: null; res: Settings };
  'settings.update': { req: SettingsPatch; res: Settings };
  'logs.recent': { req: { source?: string; limit?: number; query?: string }; res: { lines: LogLine[]; sources: string[] } };
  'diagnostics.export': { req: null; res: { path: string; bytes: number } };
  /** Starts the serve, rehearses the probe wave against it, then dials the gateway; skipRehearsal goes live at once. */
  'mining.start': { req: { skipRehearsal?: boolean } | null; res: null };
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
  'wallet.registerWithBrowser': { req: { mode: RegistrationMode; limitTao: string | null; coldkey?: string }; res: RegistrationSuccess };
  /**
   * The open browser-wallet request (WalletView.signing) answered by a UI running in a browser with a wallet
   * extension, instead of the loopback page: the paying account, then the extension's signature, or a refusal.
   */
  'wallet.answerSigning': { req: { account: string } | { signature: string } | { decline: string }; res: null };
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
  /** Sends the probe wave's shape (24 concurrent ~13k-token prompts) to the local serve and measures TTFT/TPOT p99 against the gates. */
  'mining.rehearse': { req: null; res: RehearsalResult };
  /** The live GPU panel is open: the engine samples the GPUs at 1 Hz for leaseMs, so the page renews before then. */
  'gpus.watch': { req: null; res: { leaseMs: number } };
  /** A new coldkey: the words come back once (for the show-once dialog); the password seals the $NACL file. */
  'wallet.createColdkey': { req: { wallet: string; password: string }; res: CreatedColdkeyView };
  /** The secret (mnemonic or 0x seed) and the password travel once; the engine writes btcli files and forgets both. */
  'wallet.importColdkey': { req: { wallet: string; secret: string; password: string }; res: CreatedColdkeyView };
  /** Only coldkeypub.txt, from an SS58 address: for a coldkey held in a browser wallet. */
  'wallet.setColdkeyAddress': { req: { wallet: string; address: string }; res: CreatedColdkeyView };
  /** One hello to the gateway with the stored key: admit, or the gateway's deny reason. */
  'wallet.verifyMinerKey': { req: null; res: MinerKeyVerification };
  /** Asks the chain whether it offers a faucet (the simulated network's) and reads the chosen coldkey's balance: WalletView.faucet. */
  'wallet.faucet': { req: null; res: FaucetView | null };
  /** Funds the chosen wallet's coldkey from the simulated network's faucet; refused on any other network. */
  'wallet.faucetDrip': { req: null; res: FaucetView };
  /** "Show what works" for a rig that cannot mine. */
  'hardware.alternatives': { req: null; res: HardwareAlternative[] };
  'serve.detectRuntimes': { req: { refresh: boolean }; res: RuntimeReport };
  /** Starts the own-environment sglang install and answers at once; progress on the sglang topic. */
  'serve.installSglang': { req: null; res: null };
  'serve.cancelSglangInstall': { req: null; res: null };
  /** Whether a checkpoint folder exists or can be created with room for the download (null: the data dir's). */
  'checkpoint.checkFolder': { req: { dir: string | null }; res: CheckpointFolderVerdict };
  /** The diagnostics bundle as content, so a browser can offer it as a download. */
  'diagnostics.download': { req: null; res: { fileName: string; content: string; bytes: number } };
  /** A check the user asked for (works with automatic updates off); the answer arrives on the update topic. */
  'update.check': { req: null; res: null };
  /** Downloads the update on offer and answers at once; progress on the update topic. */
  'update.download': { req: null; res: null };
  /** Restarts into the downloaded update once the miner has drained (never mid-request). */
  'update.restart': { req: null; res: null };
  /** Stores (or, with null, removes) the URL new alerts are posted to; the URL never comes back. */
  'alerts.setWebhook': { req: { url: string | null }; res: AlertWebhookStatus };
  /** Posts a test alert now; refused with the reason when the webhook does not take it. */
  'alerts.testWebhook': { req: null; res: AlertWebhookStatus };
  /** Adds a rig reached over SSH (docs/fleet.md); its host key is then shown for acceptance on the fleet topic. */
  'fleet.addRig': { req: { target: string; name: string | null; command: string | null; dataDir: string | null }; res: RigConfig };
  'fleet.removeRig': { req: { id: string }; res: null };
  /** Accepts the host key whose fingerprints the user was shown (refused if the rig now shows others). */
  'fleet.acceptHostKey': { req: { id: string; fingerprints: string[] }; res: null };
  'fleet.retry': { req: { id: string }; res: null };
  /** Start / stop / drain mining (or validating), or start a rig's engine service, on each rig named. */
  'fleet.control': { req: { ids: string[]; action: RigAction }; res: RigActionResult[] };
  /** Keeps a rig's full panel open for about a minute (renewed while it shows): its snapshots arrive on the `rig` event. */
  'fleet.watch': { req: { id: string; fresh?: boolean }; res: null };
  /** One invoke on a rig's engine, relayed by the panel (the token never leaves it); the rig answers and checks it. */
  'fleet.rigInvoke': { req: { id: string; method: string; req: unknown }; res: unknown };
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
  'wallet.answerSigning',
  'history.requests',
  'history.count',
  'history.series',
  'earnings.refresh',
  'history.audits',
  'checkpoint.refresh',
  'checkpoint.download',
  'checkpoint.cancel',
  'mining.rehearse',
  'gpus.watch',
  'wallet.createColdkey',
  'wallet.importColdkey',
  'wallet.setColdkeyAddress',
  'wallet.verifyMinerKey',
  'wallet.faucet',
  'wallet.faucetDrip',
  'hardware.alternatives',
  'serve.detectRuntimes',
  'serve.installSglang',
  'serve.cancelSglangInstall',
  'checkpoint.checkFolder',
  'diagnostics.download',
  'update.check',
  'update.download',
  'update.restart',
  'alerts.setWebhook',
  'alerts.testWebhook',
  'fleet.addRig',
  'fleet.removeRig',
  'fleet.acceptHostKey',
  'fleet.retry',
  'fleet.control',
  'fleet.watch',
  'fleet.rigInvoke',
];

/** What a wallet extension's signer.signPayload takes (@polkadot/types' SignerPayloadJSON, field for field). */
export interface SigningPayloadView {
  address: string;
  blockHash: string;
  blockNumber: string;
  era: string;
  genesisHash: string;
  method: string;
  nonce: string;
  specVersion: string;
  tip: string;
  transactionVersion: string;
  signedExtensions: string[];
  version: number;
  mode?: number;
  metadataHash?: string;
  assetId?: unknown;
  withSignedTransaction?: boolean;
}

/** An open browser-wallet signing request: pick the paying account, wait for the transaction, sign it. */
export interface BrowserSigningView {
  phase: 'pick' | 'wait' | 'sign';
  /** One line: what is signed, e.g. "Register hotkey 5F… on subnet 53 for at most 1 τ". */
  description: string;
  /** The current cost with its unit ("0.5000 τ"), when known. */
  costTao: string | null;
  /** Pick phase: the account to check first (SS58, prefix 42). */
  preselect: string | null;
  /** The signing account, once fixed or picked (SS58, prefix 42). */
  address: string | null;
  /** Sign phase: what the extension signs. */
  payload: SigningPayloadView | null;
}

/** The wallet as the UI sees it: addresses and statuses, never a secret. */
export interface WalletView {
  listing: WalletListing | null;
  minerKey: MinerKeyStatus;
  registration: RegistrationStatusSnapshot | null;
  registrationError: string | null;
  /** While a browser-wallet registration waits for its signature: the one-shot loopback page to open. */
  signingUrl: string | null;
  /** The same request, for a UI in a browser with a wallet extension to sign in place (wallet.answerSigning). */
  signing: BrowserSigningView | null;
  /** The gateway's verdict on the stored miner key (null until checked, or after the key changed). */
  minerKeyCheck: MinerKeyVerification | null;
  /** The simulated network's faucet: null unless the engine runs against the simulated network and its chain offers one. */
  faucet: FaucetView | null;
}

/** Snapshot topics: each engine publishes immutable snapshots with a rising version. */
export interface SnapshotTopics {
  hardware: HardwareReport | null;
  settings: Settings;
  serve: ServeSnapshot | null;
  checkpoint: CheckpointSnapshot | null;
  /** Every gateway worker (the first is the Mine page's default view): one per managed engine, one for an external serve. */
  miners: MinerSnapshot[];
  validator: ValidatorSnapshot | null;
  wallet: WalletView;
  earnings: EarningsSnapshot;
  notifications: NotificationsSnapshot;
  /** Every blocker between the user and Start, per role (computed in electron/engine/preflight). */
  preflight: PreflightSnapshot | null;
  /** The last mining run's summary, shown while mining is stopped. */
  lastMiningRun: MiningRunSummary | null;
  sglang: SglangSetupSnapshot;
  update: UpdateView | null;
  /** The rigs this panel reaches over SSH, one row each, with totals and their open alerts. */
  fleet: FleetSnapshot;
  /** The τ price in the chosen currency, its source and time (null price: none read yet, or refused). */
  price: TauPriceSnapshot;
}
export type SnapshotTopic = keyof SnapshotTopics;

export interface SnapshotEnvelope<T extends SnapshotTopic = SnapshotTopic> {
  topic: T;
  version: number;
  data: SnapshotTopics[T];
}

/** The desktop app's engine process as main sees it (the WebSocket transport never sends this). */
export type EngineProcessState = { state: 'starting' } | { state: 'running' } | { state: 'restarting'; attempt: number; nextRetryAt: number; reason: string } | { state: 'stopped' };

export interface EventMap {
  snapshot: SnapshotEnvelope;
  logs: LogLine[];
  /** Desktop only: the engine process stopped and is restarting, or is back. */
  engine: EngineProcessState;
  /** A watched rig's snapshots and logs, relayed by the panel (fleet.watch). */
  rig: RigRelayEvent;
}
export type EventName = keyof EventMap;

/** What both transports offer the renderer. */
export interface EngineApi {
  invoke<M extends InvokeMethod>(method: M, req: InvokeRequest<M>): Promise<Result<InvokeResponse<M>>>;
  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void;
}

/** Wire frames of the WebSocket transport (Electron IPC carries the same payloads). */
export type ClientFrame = { kind: 'invoke'; id: number; method: string; req: unknown };
export type ServerFrame = { kind: 'result'; id: number; result: Result<unknown> } | { kind: 'event'; event: EventName; payload: unknown };

export const IPC_INVOKE_CHANNEL = 'engy:invoke';
export const IPC_EVENT_CHANNEL = 'engy:event';
