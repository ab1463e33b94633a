// The composition root both shells share: builds every service, binds the contract, disposes in order.
// It never imports electron: the Electron shell adds its window, tray and IPC around it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppInfo } from '../shared/api.ts';
import type { NetworkProfile } from '../shared/settings.ts';
import { SnapshotHub } from './contract/snapshot-hub.ts';
import type { HandlerTable } from './contract/handler-table.ts';
import { DisposableStack, toDisposable } from './engine/lib/disposable.ts';
import { LogHub } from './engine/lib/logger.ts';
import { dataPaths, type DataPaths } from './engine/lib/paths.ts';
import { SettingsStore } from './engine/settings/settings-store.ts';
import { HardwareService } from './engine/hardware/hardware-service.ts';
import { writeDiagnostics } from './engine/lib/diagnostics.ts';
import { resourcesDir } from './engine/lib/model-catalog.ts';
import { acquireInstanceLock } from './engine/lib/instance-lock.ts';
import { EngyMetrics } from './engine/metrics/engy-metrics.ts';
import { SnapshotFeeds } from './engine/metrics/snapshot-feeds.ts';
import { watchEventLoopLag } from './engine/metrics/event-loop-lag.ts';
import { Database } from './engine/store/database.ts';
import { countRequestHistory, queryRequestHistory, querySelfAudits } from './engine/store/request-history.ts';
import { SeriesStore } from './engine/store/series-store.ts';
import { recordMiners, recordServe } from './engine/store/series-recorder.ts';
import { MinerKeyStore, type SecretBox } from './engine/wallet/miner-key-store.ts';
import { MiningController } from './engine/roles/mining-controller.ts';
import { ValidatingController } from './engine/roles/validating-controller.ts';
import { WalletController } from './engine/roles/wallet-controller.ts';
import type { ChainPort } from './engine/chain/ports.ts';
import { EarningsService } from './engine/earnings/earnings-service.ts';
import { NotificationService } from './engine/notify/notification-service.ts';
import { CheckpointService } from './engine/serve/checkpoint/checkpoint-service.ts';
import { CheckpointFollower } from './engine/roles/checkpoint-follower.ts';
import { defaultCheckpointDir } from './engine/serve/checkpoint/checkpoint-folder.ts';
import { minerModel } from './engine/lib/model-catalog.ts';
import { earningsAlerts, minerAlerts, serveAlerts, validatorAlerts } from './engine/notify/alert-rules.ts';
import { loadHotkeyAddress } from './engine/wallet/hotkey-address.ts';
import { PINNED_MASTER_HOTKEY } from '../shared/settings.ts';

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
  settings: SettingsStore;
  hardware: HardwareService;
  mining: MiningController;
  notifications: NotificationService;
  /** Prometheus text for /metrics: stable engy_* names (docs/fleet-monitoring.md). */
  renderMetrics(): string;
  validating: ValidatingController;
  wallet: WalletController;
  info: AppInfo;
  dispose(): Promise<void>;
}

function appVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(resourcesDir(), '..', 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
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
  const paths = dataPaths(opts.dataDir);
  // Two engines on one data dir would fight over the serve, the database and the worker identity.
  stack.add(acquireInstanceLock(paths.root));
  const logs = new LogHub(opts.echo ? { dir: paths.logs, echo: opts.echo } : { dir: paths.logs });
  const log = logs.logger('app');
  const hub = new SnapshotHub();
  stack.add(toDisposable(() => logs.flush()));
  stack.add(logs.onBatch((batch) => hub.logs(batch)));

  const settings = new SettingsStore(paths.settings, logs.logger('settings'), opts.network ? { network: opts.network } : {});
  stack.add(hub.bind('settings', () => settings.get(), (l) => settings.onDidChange(l)));

  const hardware = new HardwareService({ dataDir: paths.root, modelId: settings.get().mining.modelId }, logs.logger('hardware'));
  stack.add(hub.bind('hardware', () => hardware.snapshot(), (l) => hardware.onDidChange(l)));

  const db = new Database(paths.database);
  stack.add(toDisposable(() => db.close()));
  const minerKeys = new MinerKeyStore({ secretsDir: paths.secrets, secretBox: opts.secretBox ?? null, redactor: logs.redactor, logger: logs.logger('keys') });
  const openChain = async (url: string): Promise<ChainPort> => {
    const { PolkadotChainClient } = await import('./engine/chain/polkadot-chain-client.ts');
    return PolkadotChainClient.connect({ endpoint: url, logger: logs.logger('chain') });
  };
  const version = appVersion();
  const versions = { 'engy-panel': version, node: process.versions.node };
  const simulated = settings.get().network === 'simulated';

  const mining = stack.add(new MiningController({ settings, hardware, minerKeys, logs, db, paths, versions, simulated }));
  stack.add(hub.bind('serve', () => mining.serveSnapshot(), (l) => mining.onDidChange(l)));
  stack.add(hub.bind('miner', () => mining.minerSnapshot(), (l) => mining.onDidChange(l)));
  stack.add(hub.bind('miners', () => mining.minerSnapshots(), (l) => mining.onDidChange(l)));
  const validating = stack.add(new ValidatingController({ settings, logs, db, paths, version: `engy-panel ${version}`, openChain }));
  stack.add(hub.bind('validator', () => validating.snapshot(), (l) => validating.onDidChange(l)));
  const wallet = new WalletController({ settings, minerKeys, logs, openChain, ...(opts.openExternal ? { openExternal: opts.openExternal } : {}) });
  stack.add(hub.bind('wallet', () => wallet.snapshot(), (l) => wallet.onDidChange(l)));
  // The checkpoint the miner serves: the user's folder, or ours under the data dir; it follows Settings.
  const spec = minerModel(settings.get().mining.modelId);
  const checkpointDir = () => settings.get().mining.checkpointDir ?? defaultCheckpointDir(paths.checkpoints, spec.checkpoint);
  const checkpoint = stack.add(
    new CheckpointFollower(checkpointDir(), (dir) => new CheckpointService({ repo: spec.checkpoint, dir, publishedRoot: spec.modelRoot, logger: logs.logger('checkpoint') }), log),
  );
  stack.add(settings.onDidChange(() => checkpoint.follow(checkpointDir())));
  stack.add(hub.bind('checkpoint', () => checkpoint.snapshot(), (l) => checkpoint.onDidChange(l)));

  const metrics = new EngyMetrics();
  const feeds = new SnapshotFeeds(metrics);
  stack.add(watchEventLoopLag((seconds) => metrics.setEventLoopLag(seconds)));
  stack.add(
    mining.onDidChange(() => {
      const m = mining.minerSnapshot();
      const sv = mining.serveSnapshot();
      if (m) feeds.miner(m);
      if (sv) feeds.serve(sv);
    }),
  );
  stack.add(
    validating.onDidChange(() => {
      const v = validating.snapshot();
      if (v) feeds.validator(v);
    }),
  );

  // Chart history: the newest samples of every snapshot, thinned and kept 7 days (History and Mine charts open on it).
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

  const notifications = new NotificationService(() => settings.get().mutedNotifications);
  stack.add(hub.bind('notifications', () => notifications.snapshot(), (l) => notifications.onDidChange(l)));
  stack.add(
    mining.onDidChange(() => {
      // Every worker on the box alerts on its own (keys carry the worker name so two never merge).
      notifications.update(
        'miner',
        mining.minerSnapshots().flatMap((m, i, all) => minerAlerts(m).map((a) => (all.length > 1 ? { ...a, key: `${m.workerName ?? i}:${a.key}`, title: `${a.title} (${m.workerName ?? `worker ${i}`})` } : a))),
      );
      notifications.update('serve', serveAlerts(mining.serveSnapshot()));
    }),
  );
  stack.add(validating.onDidChange(() => notifications.update('validator', validatorAlerts(validating.snapshot(), Date.now()))));

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
        return { hotkey: selectedHotkey, providerUrl: v.providerUrl, masterHotkey: v.masterHotkey, netuid: v.netuid, ownerHotkey: PINNED_MASTER_HOTKEY };
      },
      db,
      async () => {
        const { PolkadotChainClient } = await import('./engine/chain/polkadot-chain-client.ts');
        return PolkadotChainClient.connect({ endpoint: settings.get().validating.chainUrl, logger: logs.logger('chain') });
      },
      logs.logger('earnings'),
    ),
  );
  stack.add(hub.bind('earnings', () => earnings.snapshot(), (l) => earnings.onDidChange(l)));
  stack.add(earnings.onDidChange(() => notifications.update('earnings', earningsAlerts(earnings.snapshot()))));
  earnings.start(simulated ? 20_000 : 600_000);
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

  const table: HandlerTable = {
    'app.info': () => info,
    'hardware.report': (req) => hardware.get(req.refresh),
    'settings.get': () => settings.get(),
    'settings.update': (patch) => settings.update(patch),
    'logs.recent': (req) => {
      const q = req.query?.toLowerCase();
      const lines = logs.recent({ ...(req.source ? { source: req.source } : {}), limit: req.limit ?? 2000 }).filter((l) => !q || l.msg.toLowerCase().includes(q) || l.source.includes(q));
      return { lines, sources: logs.sources() };
    },
    'diagnostics.export': () =>
      writeDiagnostics({
        dir: join(paths.root, 'diagnostics'),
        logs,
        versions: { app: info.version, node: process.versions.node, platform: info.platform, shell: info.shell },
        sections: { settings: settings.get(), hardware: hardware.snapshot(), serve: mining.serveSnapshot(), miner: mining.minerSnapshot(), validator: validating.snapshot(), wallet: wallet.snapshot() },
      }),
    'mining.start': async () => {
      await mining.start();
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
    'wallet.setMinerKey': (req) => minerKeys.set(req.key),
    'wallet.registration': () => wallet.refreshRegistration(),
    'wallet.register': (req) => wallet.register(req.mode, req.limitTao, req.password),
    'wallet.registerWithBrowser': (req) => wallet.registerWithBrowser(req.mode, req.limitTao),
    'history.requests': (req) => queryRequestHistory(db, req),
    'history.count': (req) => countRequestHistory(db, req),
    'history.series': (req) => series.query(Date.now(), req.windowMs, req.points ?? 300, req.prefix ?? ''),
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
  };

  log.info(`engine started (${opts.shell}, data dir ${paths.root}, network ${info.network})`);
  void hardware.get().catch((e: unknown) => log.error(`hardware detection failed: ${e instanceof Error ? e.message : String(e)}`));

  return { renderMetrics: () => metrics.renderMetrics(), paths, hub, logs, table, settings, hardware, mining, notifications, validating, wallet, info, dispose: () => stack.dispose() };
}
