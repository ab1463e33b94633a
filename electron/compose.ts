// The composition root both shells share: builds every service, binds the contract, disposes in order.
// It never imports electron: the Electron shell adds its window, tray and IPC around it.
import { join } from 'node:path';
import type { AppInfo } from '../shared/api.ts';
import type { NetworkProfile } from '../shared/settings.ts';
import { SnapshotHub } from './contract/snapshot-hub.ts';
import type { HandlerTable } from './contract/handler-table.ts';
import { UpdateSlot } from './update-slot.ts';
import { readFileSync } from 'node:fs';
import { DisposableStack, toDisposable } from './engine/lib/disposable.ts';
import type { LogHub } from './engine/lib/logger.ts';
import type { DataPaths } from './engine/lib/paths.ts';
import { SettingsStore } from './engine/settings/settings-store.ts';
import { HardwareService } from './engine/hardware/hardware-service.ts';
import { writeDiagnostics } from './engine/lib/diagnostics.ts';
import { EngyMetrics } from './engine/metrics/engy-metrics.ts';
import { SnapshotFeeds } from './engine/metrics/snapshot-feeds.ts';
import { keepRequestHistoryBounded } from './engine/store/request-totals.ts';
import { watchStorage } from './engine/notify/storage-watch.ts';
import { AlertWebhook, AlertWebhookStore } from './engine/notify/alert-webhook.ts';
import { hostname } from 'node:os';
import { feedMiningMetrics } from './engine/metrics/mining-metrics.ts';
import { watchEventLoopLag } from './engine/metrics/event-loop-lag.ts';
import { countRequestHistory, queryRequestHistory, querySelfAudits } from './engine/store/request-history.ts';
import { SeriesStore } from './engine/store/series-store.ts';
import { recordMiners, recordServe } from './engine/store/series-recorder.ts';
import { MinerKeyStore, type SecretBox } from './engine/wallet/miner-key-store.ts';
import { MiningController } from './engine/roles/mining-controller.ts';
import { ValidatingController } from './engine/roles/validating-controller.ts';
import { WalletController } from './engine/roles/wallet-controller.ts';
import { openChainClient } from './engine/chain/open-chain.ts';
import { queryLogs } from './engine/lib/log-query.ts';
import { openRuntime } from './runtime.ts';
import { EarningsService } from './engine/earnings/earnings-service.ts';
import { wirePrice } from './engine/earnings/wire-price.ts';
import { NotificationService } from './engine/notify/notification-service.ts';
import { NotificationStore } from './engine/notify/notification-store.ts';
import { CheckpointService } from './engine/serve/checkpoint/checkpoint-service.ts';
import { CheckpointFollower } from './engine/roles/checkpoint-follower.ts';
import { defaultCheckpointDir } from './engine/serve/checkpoint/checkpoint-folder.ts';
import { minerModel } from './engine/lib/model-catalog.ts';
import { earningsAlerts, serveAlerts, startupAlerts, validatorAlerts, workerAlerts } from './engine/notify/alert-rules.ts';
import { loadHotkeyAddress } from './engine/wallet/hotkey-address.ts';
import { SUBNET_OWNER_HOTKEY } from '../shared/network.ts';
import { AppFailure, errorMessage } from '../shared/errors.ts';
import { PreflightService } from './engine/preflight/preflight-service.ts';
import { RehearsalRunner } from './engine/preflight/rehearsal.ts';
import type { RehearsalResult } from '../shared/preflight.ts';
import { detectRuntimes } from './engine/serve/runtime-detect.ts';
import { DEFAULT_TARGETS } from './engine/miner/stats.ts';
import { helloHw } from './engine/miner/hello-hw.ts';
import { hardwareAlternatives } from './engine/hardware/alternatives.ts';
import { SglangSetupService } from './engine/serve/sglang-setup-service.ts';
import { checkFolderSpace } from './engine/serve/checkpoint/folder-space.ts';
import { heartbeatVersion } from './engine/validator/heartbeat.ts';

export interface ComposeOptions {
  dataDir: string;
  shell: AppInfo['shell'];
  network?: NetworkProfile;
  /** Echo log lines (headless daemons print to stdout). */
  echo?: (line: string) => void;
  /** Electron's safeStorage; absent headless (the miner key then lives in a 0600 file, with a warning). */
  secretBox?: SecretBox | null;
  /** Opens a loopback page (browser-wallet signing) in the user's browser: Electron's shell.openExternal. */
  openExternal?: (url: string) => void;
}

export interface Engine {
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
  info: AppInfo;
  dispose(): Promise<void>;
}

export async function composeEngine(opts: ComposeOptions): Promise<Engine> {
  const stack = new DisposableStack();
  try {
    return await build(opts, stack);
  } catch (e) {
    // Release what was built (the data dir lock first of all) so a corrected retry can start.
    await stack.dispose().catch(() => undefined);
    throw e;
  }
}

async function build(opts: ComposeOptions, stack: DisposableStack): Promise<Engine> {
  // The data dir prepared and locked, stale temp files swept, logs and the database opened (runtime.ts).
  const rt = stack.add(await openRuntime({ dataDir: opts.dataDir, ...(opts.echo ? { echo: opts.echo } : {}) }));
  const { paths, logs, db } = rt;
  const log = logs.logger('app');
  const hub = new SnapshotHub();
  stack.add(logs.onBatch((batch) => hub.logs(batch)));
  // Empty until the desktop shell attaches its updater (a headless engine keeps it empty).
  const updates = new UpdateSlot();
  stack.add(hub.bind('update', () => updates.view(), (l) => updates.onDidChange(l)));

  const settings = new SettingsStore(paths.settings, logs.logger('settings'), opts.network ? { network: opts.network } : {});
  stack.add(hub.bind('settings', () => settings.get(), (l) => settings.onDidChange(l)));

  logs.setMinLevel(settings.get().logLevel);
  // The checkpoint the miner serves: the user's folder, or ours under the data dir; it follows Settings.
  const spec = minerModel(settings.get().mining.modelId);
  const checkpointDir = () => settings.get().mining.checkpointDir ?? defaultCheckpointDir(paths.checkpoints, spec.checkpoint);
  const fullDownloadBytes = spec.memory.minDiskGiB * 1024 ** 3;
  const checkpointSpace = (dir?: string) => checkFolderSpace({ dir: dir ?? checkpointDir(), needBytes: fullDownloadBytes, filesBytes: spec.memory.downloadGB * 1e9 });
  const hardware = new HardwareService(
    () => ({ dataDir: paths.root, modelId: settings.get().mining.modelId, allowedGpus: settings.get().mining.gpus }),
    logs.logger('hardware'),
    undefined,
    () => checkpointSpace(),
  );
  // The log level and the GPU choice apply at once: a new plan (and CUDA_VISIBLE_DEVICES) on the next start.
  let gpusKey = JSON.stringify(settings.get().mining.gpus);
  stack.add(
    settings.onDidChange((s) => {
      logs.setMinLevel(s.logLevel);
      if (JSON.stringify(s.mining.gpus) === gpusKey) return;
      gpusKey = JSON.stringify(s.mining.gpus);
      void hardware.get(true).catch((e: unknown) => log.warn(`hardware re-check failed: ${errorMessage(e)}`));
    }),
  );
  stack.add(hub.bind('hardware', () => hardware.snapshot(), (l) => hardware.onDidChange(l)));

  const minerKeys = new MinerKeyStore({ secretsDir: paths.secrets, secretBox: opts.secretBox ?? null, redactor: logs.redactor, logger: logs.logger('keys') });
  const chainLog = logs.logger('chain');
  const openChain = (url: string) => openChainClient(url, chainLog);
  const { version, versions } = rt;
  const simulated = settings.get().network === 'simulated';

  // Start goes through the pre-flight gate; the service is built below, once the wallet and checkpoint exist.
  let preflight: PreflightService | null = null;
  const gate = async (role: 'mine' | 'validate') => {
    if (!preflight) throw new AppFailure('unavailable', 'The engine is still starting: try again in a moment.');
    return preflight.gate(role);
  };
  const mining = stack.add(new MiningController({ settings, hardware, minerKeys, logs, db, paths, versions, simulated, preflight: { gate }, rehearse: (urls): Promise<RehearsalResult> => rehearsals.runOn(urls) }));
  stack.add(hub.bind('serve', () => mining.serveSnapshot(), (l) => mining.onDidChange(l)));
  stack.add(hub.bind('lastMiningRun', () => mining.lastRunSummary(), (l) => mining.onDidChange(l)));
  stack.add(hub.bind('miners', () => mining.minerSnapshots(), (l) => mining.onDidChange(l)));
  const validating = stack.add(new ValidatingController({ settings, logs, db, paths, version: heartbeatVersion(version), openChain, preflight: { gate } }));
  stack.add(hub.bind('validator', () => validating.snapshot(), (l) => validating.onDidChange(l)));
  const checkpoint = stack.add(
    new CheckpointFollower(checkpointDir(), (dir) => new CheckpointService({ repo: spec.checkpoint, dir, publishedRoot: spec.modelRoot, downloadBytes: spec.memory.downloadGB * 1e9, logger: logs.logger('checkpoint') }), log),
  );
  // A key-check hello says what a real one would: model, checkpoint identity (when known), hardware.
  const helloContext = async () => {
    const report = await hardware.get();
    return { gatewayUrl: settings.get().mining.gatewayUrl, model: spec.id, modelRoot: checkpoint.snapshot()?.identity ?? spec.modelRoot, hw: helloHw(report), versions };
  };
  const wallet = new WalletController({ settings, minerKeys, logs, openChain, helloContext, ...(opts.openExternal ? { openExternal: opts.openExternal } : {}) });
  stack.add(hub.bind('wallet', () => wallet.snapshot(), (l) => wallet.onDidChange(l)));
  const sglang = new SglangSetupService({ dataDir: paths.root, log: logs.logger('sglang-setup') });
  stack.add(toDisposable(() => sglang.dispose()));
  stack.add(hub.bind('sglang', () => sglang.snapshot(), (l) => sglang.onDidChange(l)));
  stack.add(settings.onDidChange(() => checkpoint.follow(checkpointDir())));
  stack.add(hub.bind('checkpoint', () => checkpoint.snapshot(), (l) => checkpoint.onDidChange(l)));
  // The hardware verdict counts the room for what is still to download: re-measured when the checkpoint's
  // state or folder changes, and at most every few seconds while a download writes.
  let spaceKey = '';
  let spaceAt = 0;
  const remeasureSpace = () => {
    const c = checkpoint.snapshot();
    const key = `${checkpointDir()}|${c?.state ?? ''}`;
    if (key === spaceKey && Date.now() - spaceAt < 5_000) return;
    spaceKey = key;
    spaceAt = Date.now();
    hardware.refreshSpace();
  };
  stack.add(checkpoint.onDidChange(remeasureSpace));
  stack.add(settings.onDidChange(remeasureSpace));
  const walletDir = (w: { path: string | null }) => (w.path ? { walletPath: w.path } : {});
  preflight = stack.add(
    new PreflightService({
      settings,
      hardware,
      wallet,
      checkpoint,
      checkpointDir,
      refreshCheckpoint: () => checkpoint.current.refresh(),
      detectRuntimes: () => detectRuntimes({ dataDir: paths.root }),
      space: (dir) => checkpointSpace(dir),
      hotkeyAddress: (w) => loadHotkeyAddress({ ...walletDir(w), wallet: w.name ?? '', hotkey: w.hotkey ?? '' }),
      log: logs.logger('preflight'),
    }),
  );
  const pf = preflight;
  stack.add(hub.bind('preflight', () => pf.snapshot(), (l) => pf.onDidChange(l)));

  const metrics = new EngyMetrics();
  const feeds = new SnapshotFeeds(metrics);
  stack.add(watchEventLoopLag((seconds) => metrics.setEventLoopLag(seconds)));
  const miningMetrics = stack.add(feedMiningMetrics(mining, feeds));
  stack.add(
    validating.onDidChange(() => {
      const v = validating.snapshot();
      if (v) feeds.validator(v);
    }),
  );

  // Chart history: the newest samples of every snapshot, thinned and kept 7 days (History and Mine charts open on it).
  // Request rows older than the kept days become daily totals: the database stops growing on a long-running rig.
  stack.add(keepRequestHistoryBounded(db, logs.logger('store')));
  const series = new SeriesStore(db);
  stack.add(
    mining.onDidChange(() => {
      try {
        recordServe(series, mining.serveSnapshot());
        recordMiners(series, mining.minerSnapshots(), Date.now());
      } catch (e) {
        log.warn(`chart history not recorded: ${(e as Error).message}`);
      }
    }),
  );

  const notifications = new NotificationService(() => settings.get().mutedNotifications, Date.now, new NotificationStore(db));
  // New alerts are also posted to the user's webhook, if one is set: a rig nobody looks at can still say it stopped.
  const webhook = stack.add(new AlertWebhook({ store: new AlertWebhookStore({ secretsDir: paths.secrets, redactor: logs.redactor }), log: logs.logger('alerts'), rig: hostname() }));
  stack.add(notifications.onNotification((n) => webhook.notify(n)));
  stack.add(
    hub.bind(
      'notifications',
      () => ({ ...notifications.snapshot(), webhook: webhook.status() }),
      (l) => {
        const subs = [notifications.onDidChange(l), webhook.onDidChange(l)];
        return { dispose: () => subs.forEach((d) => void d.dispose()) };
      },
    ),
  );
  stack.add(
    mining.onDidChange(() => {
      notifications.update('miner', workerAlerts(mining.minerSnapshots()));
      notifications.update('serve', serveAlerts(mining.serveSnapshot()));
    }),
  );
  stack.add(validating.onDidChange(() => notifications.update('validator', validatorAlerts(validating.snapshot(), Date.now()))));
  // What the runtime repaired at start (a damaged database moved aside) is shown once, in the UI too.
  notifications.update('startup', startupAlerts(rt.warnings));
  // Writes that fail (a full disk) are said once as an alert and at most once a minute in the log, never per row.
  stack.add(watchStorage(db, notifications, log, paths.root));

  const selectedHotkey = (): string | null => {
    const w = settings.get().wallet;
    if (!w.name || !w.hotkey) return null;
    try {
      return loadHotkeyAddress({ ...(w.path ? { walletPath: w.path } : {}), wallet: w.name, hotkey: w.hotkey });
    } catch {
      return null;
    }
  };
  const earnings = stack.add(
    new EarningsService(
      () => {
        const v = settings.get().validating;
        return { hotkey: selectedHotkey, providerUrl: v.providerUrl, masterHotkey: v.masterHotkey, netuid: v.netuid, ownerHotkey: SUBNET_OWNER_HOTKEY, chainUrl: v.chainUrl };
      },
      db,
      () => openChain(settings.get().validating.chainUrl),
      logs.logger('earnings'),
    ),
  );
  stack.add(hub.bind('earnings', () => earnings.snapshot(), (l) => earnings.onDidChange(l)));
  // The τ price for the profit figures (issue 28): its own module, one line here.
  stack.add(wirePrice({ settings, hub, dataDir: paths.root, log: logs.logger('price') }));
  stack.add(earnings.onDidChange(() => notifications.update('earnings', earningsAlerts(earnings.snapshot()))));
  // The simulated network closes an epoch every 8 s: a read every 5 s lands inside most windows, so realised τ shows.
  earnings.start(simulated ? 5_000 : 600_000);
  try {
    wallet.list();
  } catch (e) {
    log.warn(`wallets could not be listed: ${(e as Error).message}`);
  }

  const info: AppInfo = {
    name: 'engy panel',
    version,
    shell: opts.shell,
    network: settings.get().network,
    dataDir: paths.root,
    platform: `${process.platform}-${process.arch}`,
    node: process.versions.node,
  };

  const rehearsals = new RehearsalRunner({
    mining: () => settings.get().mining,
    serve: () => mining.serveSnapshot(),
    gates: { ttftP99Ms: spec.targets.ttftP99Ms ?? DEFAULT_TARGETS.ttftP99Ms, tpotP99Ms: spec.targets.tpotP99Ms ?? DEFAULT_TARGETS.tpotP99Ms },
    log: logs.logger('rehearsal'),
    // The simulated rig's fake serve answers a smaller wave: Start's rehearsal takes seconds, not minutes (the result says its size).
    ...(simulated ? { wave: { concurrent: 8, promptWords: 2_000, maxTokens: 32 } } : {}),
  });

  const table: HandlerTable = {
    'app.info': () => info,
    'hardware.report': (req) => hardware.get(req.refresh),
    'settings.get': () => settings.get(),
    'settings.update': (patch) => settings.update(patch),
    'logs.recent': (req) => queryLogs(logs, req),
    'diagnostics.export': () =>
      writeDiagnostics({
        dir: join(paths.root, 'diagnostics'),
        logs,
        versions: { app: info.version, node: process.versions.node, platform: info.platform, shell: info.shell },
        sections: { settings: settings.get(), hardware: hardware.snapshot(), serve: mining.serveSnapshot(), miners: mining.minerSnapshots(), validator: validating.snapshot(), wallet: wallet.snapshot() },
      }),
    'mining.start': async (req) => {
      await mining.start({ skipRehearsal: req?.skipRehearsal === true });
      return null;
    },
    'mining.stop': async () => {
      await mining.stop();
      return null;
    },
    'validator.start': async () => {
      await validating.start();
      return null;
    },
    'validator.stop': async () => {
      await validating.stop();
      return null;
    },
    'wallet.list': () => wallet.list(),
    'wallet.createHotkey': (req) => wallet.createHotkey(req.wallet, req.hotkey),
    'wallet.importHotkey': (req) => wallet.importHotkey(req.wallet, req.hotkey, req.secret),
    'wallet.setMinerKey': (req) => wallet.setMinerKey(req.key),
    'wallet.registration': () => wallet.refreshRegistration(),
    'wallet.register': (req) => wallet.register(req.mode, req.limitTao, req.password),
    'wallet.registerWithBrowser': (req) => wallet.registerWithBrowser(req.mode, req.limitTao, req.coldkey),
    'history.requests': (req) => queryRequestHistory(db, req),
    'history.count': (req) => countRequestHistory(db, req),
    'history.series': (req) => series.query(Date.now(), req.windowMs, req.points ?? 300, req.prefix ?? ''),
    'alerts.setWebhook': (req) => webhook.set(req.url),
    'alerts.testWebhook': () => webhook.test(),
    'earnings.refresh': () => earnings.refresh(),
    'history.audits': (req) => querySelfAudits(db, req.limit),
    'checkpoint.refresh': () => checkpoint.current.refresh(),
    'checkpoint.download': () => {
      void checkpoint.current.download();
      return null;
    },
    'checkpoint.cancel': () => {
      checkpoint.current.cancel();
      return null;
    },
    'mining.rehearse': () => rehearsals.run(),
    'wallet.createColdkey': (req) => wallet.createColdkey(req.wallet, req.password),
    'wallet.importColdkey': (req) => wallet.importColdkey(req.wallet, req.secret, req.password),
    'wallet.setColdkeyAddress': (req) => wallet.setColdkeyAddress(req.wallet, req.address),
    'wallet.verifyMinerKey': () => wallet.verifyMinerKey(),
    'hardware.alternatives': async () => hardwareAlternatives(spec, await hardware.get()),
    'serve.detectRuntimes': (req) => sglang.detect(req.refresh),
    'serve.installSglang': () => {
      sglang.start();
      return null;
    },
    'serve.cancelSglangInstall': () => {
      sglang.cancel();
      return null;
    },
    'checkpoint.checkFolder': (req) => checkpointSpace(req.dir ?? defaultCheckpointDir(paths.checkpoints, spec.checkpoint)),
    'diagnostics.download': () => {
      const written = table['diagnostics.export'](null) as { path: string; bytes: number };
      return { fileName: written.path.split(/[\\/]/).pop() ?? 'engy-diagnostics.json', content: readFileSync(written.path, 'utf8'), bytes: written.bytes };
    },
    'update.check': () => updates.check(),
    'update.download': () => updates.download(),
    'update.restart': () => updates.restart(),
  };

  log.info(`engine started (${opts.shell}, data dir ${paths.root}, network ${info.network})`);
  void hardware.get().catch((e: unknown) => log.error(`hardware detection failed: ${errorMessage(e)}`));

  return {
    renderMetrics: () => {
      miningMetrics.beforeRender();
      return metrics.renderMetrics();
    },
    paths, hub, logs, table, updates, settings, hardware, mining, notifications, validating, wallet, info,
    dispose: () => stack.dispose(),
  };
}
