// The one composition root: every entry (the desktop engine, headless, `demo`, `mine`, `validate`) builds its
// services here, with a profile naming the domain modules it gets (compose/profiles.ts). Each module in
// compose/ owns its handlers, topics and subscriptions; this file only orders them. Never imports electron:
// the Electron shell adds its window, tray and IPC around the engine.
import type { AppInfo } from '../shared/api.ts';
import type { NetworkProfile } from '../shared/settings.ts';
import type { LogLevel } from '../shared/logs.ts';
import type { FreeBytesAt } from './engine/lib/disk-free.ts';
import { errorMessage } from '../shared/errors.ts';
import { SnapshotHub } from './contract/snapshot-hub.ts';
import type { HandlerTable } from './contract/handler-table.ts';
import type { UpdateSlot } from './update-slot.ts';
import { DisposableStack } from './engine/lib/disposable.ts';
import { systemClock } from './engine/lib/clock.ts';
import type { LogHub } from './engine/lib/logger.ts';
import type { DataPaths } from './engine/lib/paths.ts';
import type { SettingsStore } from './engine/settings/settings-store.ts';
import type { HardwareService } from './engine/hardware/hardware-service.ts';
import type { SecretBox } from './engine/wallet/miner-key-store.ts';
import type { MiningController } from './engine/roles/mining-controller.ts';
import type { ValidatingController } from './engine/roles/validating-controller.ts';
import type { WalletController } from './engine/roles/wallet-controller.ts';
import type { NotificationService } from './engine/notify/notification-service.ts';
import { openChainClient } from './engine/chain/open-chain.ts';
import { SharedConnections } from './engine/chain/shared-connections.ts';
import { openRuntime, type Runtime } from './runtime.ts';
import { defaultProfile, PROFILE_MODULES, type ModuleName, type Profile } from './compose/profiles.ts';
import { Wiring } from './compose/wiring.ts';
import { modelPlace } from './compose/model-place.ts';
import { wireSettings } from './compose/settings-module.ts';
import { wireHardware } from './compose/hardware-module.ts';
import { wireCheckpoint } from './compose/checkpoint-module.ts';
import { wireServe } from './compose/serve-module.ts';
import { listWallets, wireWallet } from './compose/wallet-module.ts';
import { wirePreflight } from './compose/preflight-module.ts';
import { wireMining, wireProofPool } from './compose/mining-module.ts';
import { wireValidating } from './compose/validating-module.ts';
import { wireMetrics } from './compose/metrics-module.ts';
import { wireHistory } from './compose/history-module.ts';
import { wireNotify, wireStorageWatch, wireWebhook } from './compose/notify-module.ts';
import { wireEarnings } from './compose/earnings-module.ts';
import { wireApp } from './compose/app-module.ts';
import { wireFleet } from './compose/fleet-module.ts';
import type { FleetService } from './engine/fleet/fleet-service.ts';
import { wireHealthLines } from './compose/health-module.ts';

export type { Profile, ModuleName } from './compose/profiles.ts';
import type { MineConfig, ValidateConfig } from './compose/daemon-modules.ts';
export type { MineConfig, ValidateConfig } from './compose/daemon-modules.ts';

export interface ComposeOptions {
  dataDir: string;
  /** Which services (compose/profiles.ts); default: 'desktop' for the Electron shell, else 'headless'. */
  profile?: Profile;
  /** What app.info says the UI runs in; default from the profile. */
  shell?: AppInfo['shell'];
  network?: NetworkProfile;
  /** Echo log lines (the shells that print send them to stdout). */
  echo?: (line: string) => void;
  /** Electron's safeStorage; absent headless (the miner key then lives in a 0600 file, with a warning). */
  secretBox?: SecretBox | null;
  /** Opens a loopback page (browser-wallet signing) in the user's browser: Electron's shell.openExternal. */
  openExternal?: (url: string) => void;
  /** The daemons: the lowest level printed, a handle holding the process open, temp folders outside the data dir. */
  runtime?: { minLevel?: LogLevel; keepAlive?: boolean; tempDirs?: string[] };
  /** The `mine` profile's worker (required there). */
  mine?: MineConfig;
  /** The `validate` profile's validator (required there). */
  validate?: ValidateConfig;
  /**
   * The free bytes at a path, for the checkpoint's room (default: the file system's own answer). Tests that
   * walk a rig pass the rig's disk, so their verdict does not follow the free space of the machine running them.
   */
  diskFreeBytes?: FreeBytesAt;
}

export interface Engine {
  profile: Profile;
  /** The modules wired, in build order (a test lists them per profile). */
  modules: readonly ModuleName[];
  paths: DataPaths;
  hub: SnapshotHub;
  logs: LogHub;
  table: HandlerTable;
  /** Where the desktop shell attaches its updater (the update topic and update.* invokes). */
  updates: UpdateSlot;
  settings: SettingsStore;
  hardware: HardwareService;
  mining: MiningController;
  notifications: NotificationService;
  /** Prometheus text for /metrics: stable engy_* names (docs/fleet-monitoring.md). */
  renderMetrics(): Promise<string>;
  validating: ValidatingController;
  wallet: WalletController;
  /** The rigs reached over SSH (electron/engine/fleet). */
  fleet: FleetService;
  info: AppInfo;
  dispose(): Promise<void>;
}

/** A daemon (`mine`, `validate`): its one service, run until the stop signal. */
export interface DaemonEngine {
  profile: 'mine' | 'validate';
  modules: readonly ModuleName[];
  paths: DataPaths;
  logs: LogHub;
  /** The runtime under it (the database, for a test that fills it). */
  runtime: Runtime;
  notifications: NotificationService;
  /** Starts the service and runs it until `stopSignal`; resolves to the command's exit code. */
  run(stopSignal: Promise<string>): Promise<number>;
  dispose(): Promise<void>;
}

export function composeEngine(opts: ComposeOptions & { profile: 'mine' | 'validate' }): Promise<DaemonEngine>;
export function composeEngine(opts: ComposeOptions & { profile?: 'desktop' | 'headless' | 'demo' }): Promise<Engine>;
export async function composeEngine(opts: ComposeOptions): Promise<Engine | DaemonEngine> {
  const profile = opts.profile ?? defaultProfile(opts.shell ?? 'headless');
  const stack = new DisposableStack();
  try {
    // The data dir prepared and locked, stale temp files swept, logs and the database opened (runtime.ts).
    const rt = stack.add(await openRuntime({ dataDir: opts.dataDir, ...(opts.echo ? { echo: opts.echo } : {}), ...opts.runtime }));
    const w = new Wiring(rt, new SnapshotHub(), stack);
    w.module('runtime');
    const built = profile === 'mine' || profile === 'validate' ? await buildDaemon(profile, w, opts, stack) : buildPanel(profile, w, opts, stack);
    const expected = PROFILE_MODULES[profile];
    if (w.modules.join() !== expected.join()) throw new Error(`the ${profile} profile wired ${w.modules.join(', ')} instead of ${expected.join(', ')}`);
    return built;
  } catch (e) {
    // Release what was built (the data dir lock first of all) so a corrected retry can start.
    await stack.dispose().catch(() => undefined);
    throw e;
  }
}

function buildPanel(profile: Profile, w: Wiring, opts: ComposeOptions, stack: DisposableStack): Engine {
  const { rt, hub } = w;
  const { paths, logs } = rt;
  const log = logs.logger('app');
  stack.add(logs.onBatch((batch) => hub.logs(batch)));
  const settings = wireSettings(w, opts.network);
  const place = modelPlace(settings, paths, opts.diskFreeBytes);
  const simulated = settings.get().network === 'simulated';
  const chainLog = logs.logger('chain');
  // One connection per endpoint for the validator's ticks, Earnings, the wallet and the hardware check, kept
  // 30 s after its last user: the simulated network's 2-5 s cadences keep one; finney's minutes close it between.
  const chains = w.add(new SharedConnections((url: string) => openChainClient(url, chainLog), { lingerMs: 30_000, clock: systemClock }));
  const openChain = (url: string) => chains.open(url);

  const hardware = wireHardware(w, settings, place, openChain);
  const checkpoint = wireCheckpoint(w, settings, hardware, place);
  wireServe(w);
  const proofPool = wireProofPool(w);
  const { wallet, minerKeys } = wireWallet(w, {
    settings,
    hardware,
    checkpoint,
    place,
    openChain,
    secretBox: opts.secretBox ?? null,
    ...(opts.openExternal ? { openExternal: opts.openExternal } : {}),
  });
  const preflight = wirePreflight(w, { settings, hardware, wallet, checkpoint, place });
  const notifications = wireNotify(w, () => settings.get().mutedNotifications);
  const { mining, feed: miningFeed } = wireMining(w, { settings, hardware, minerKeys, preflight, notifications, proofPool, place, simulated });
  const { validating, feed: validatorFeed } = wireValidating(w, { settings, preflight, notifications, openChain });
  const renderMetrics = wireMetrics(w, mining, miningFeed, validatorFeed);
  wireHistory(w, miningFeed);
  const webhook = wireWebhook(w, notifications);
  wireStorageWatch(w, notifications, 'app');
  wireEarnings(w, { settings, notifications, openChain, simulated });
  const shell = opts.shell ?? (profile === 'desktop' ? 'electron' : 'headless');
  const { info, updates } = wireApp(w, { shell, settings, hardware, mining, validating, wallet });
  const fleet = wireFleet(w, { webhook, muted: () => settings.get().mutedNotifications });
  if (PROFILE_MODULES[profile].includes('health-lines')) {
    wireHealthLines(w, {
      miners: (l) => miningFeed.onDidView((v) => l(v.miners)),
      ticks: { onDidTick: (l) => validating.onDidTick(l), pollS: () => settings.get().validating.pollSeconds },
    });
  }
  listWallets(w, wallet);
  const table = w.table();

  log.info(`engine started (${shell}, data dir ${paths.root}, network ${info.network})`);
  void hardware.get().catch((e: unknown) => log.error(`hardware detection failed: ${errorMessage(e)}`));
  return {
    profile,
    modules: w.modules,
    renderMetrics,
    paths,
    hub,
    logs,
    table,
    updates,
    settings,
    hardware,
    mining,
    notifications,
    validating,
    wallet,
    info,
    fleet,
    dispose: () => stack.dispose(),
  };
}

async function buildDaemon(profile: 'mine' | 'validate', w: Wiring, opts: ComposeOptions, stack: DisposableStack): Promise<DaemonEngine> {
  const { rt } = w;
  // The daemons' services (the miner's tokenizer, the validator's polkadot-js) load only for a daemon profile.
  const { runMinerDaemon, wireMinerDaemon, wireValidatorDaemon } = await import('./compose/daemon-modules.ts');
  const notifications = wireNotify(w, () => []);
  wireStorageWatch(w, notifications, profile === 'mine' ? 'miner' : 'validator');
  const common = { modules: w.modules, paths: rt.paths, logs: rt.logs, runtime: rt, notifications, dispose: () => stack.dispose() };
  if (profile === 'mine') {
    if (!opts.mine) throw new Error('the mine profile needs its worker (ComposeOptions.mine)');
    const pool = wireProofPool(w);
    const daemon = wireMinerDaemon(w, opts.mine, pool);
    wireHealthLines(w, { miners: (l) => daemon.miner.onDidChange((s) => l([s])) });
    return { ...common, profile, run: (stopSignal) => runMinerDaemon(daemon, rt.logs.logger('miner'), stopSignal) };
  }
  if (!opts.validate) throw new Error('the validate profile needs its validator (ComposeOptions.validate)');
  const svc = await wireValidatorDaemon(w, opts.validate);
  const pollS = opts.validate.config.pollS;
  wireHealthLines(w, { ticks: { onDidTick: (l) => svc.onDidTick(l), pollS: () => pollS } });
  const { runValidatorDaemon } = await import('./engine/validator/daemon.ts');
  return { ...common, profile, run: (stopSignal) => runValidatorDaemon(svc, rt.logs.logger('validator'), stopSignal) };
}
