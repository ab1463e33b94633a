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

export interface ComposeOptions {
  dataDir: string;
  shell: AppInfo['shell'];
  network?: NetworkProfile;
  /** Echo log lines (headless daemons print to stdout). */
  echo?: (line: string) => void;
}

export interface Engine {
  paths: DataPaths;
  hub: SnapshotHub;
  logs: LogHub;
  table: HandlerTable;
  settings: SettingsStore;
  hardware: HardwareService;
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
  const paths = dataPaths(opts.dataDir);
  const logs = new LogHub(opts.echo ? { dir: paths.logs, echo: opts.echo } : { dir: paths.logs });
  const log = logs.logger('app');
  const hub = new SnapshotHub();
  stack.add(toDisposable(() => logs.flush()));
  stack.add(logs.onBatch((batch) => hub.logs(batch)));

  const settings = new SettingsStore(paths.settings, logs.logger('settings'), opts.network ? { network: opts.network } : {});
  stack.add(hub.bind('settings', () => settings.get(), (l) => settings.onDidChange(l)));

  const hardware = new HardwareService({ dataDir: paths.root, modelId: settings.get().mining.modelId }, logs.logger('hardware'));
  stack.add(hub.bind('hardware', () => hardware.snapshot(), (l) => hardware.onDidChange(l)));

  const info: AppInfo = {
    name: 'engy panel',
    version: appVersion(),
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
        sections: { settings: settings.get(), hardware: hardware.snapshot() },
      }),
  };

  log.info(`engine started (${opts.shell}, data dir ${paths.root}, network ${info.network})`);
  void hardware.get().catch((e: unknown) => log.error(`hardware detection failed: ${e instanceof Error ? e.message : String(e)}`));

  return { paths, hub, logs, table, settings, hardware, info, dispose: () => stack.dispose() };
}
