// The app itself: what it is (app.info), its logs, the diagnostics bundle, and the update slot the desktop
// shell attaches its updater to (a headless engine keeps it empty).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_VERSION, type AppInfo } from '../../shared/api.ts';
import type { HardwareService } from '../engine/hardware/hardware-service.ts';
import { writeDiagnostics } from '../engine/lib/diagnostics.ts';
import { queryLogs } from '../engine/lib/log-query.ts';
import type { MiningController } from '../engine/roles/mining-controller.ts';
import type { ValidatingController } from '../engine/roles/validating-controller.ts';
import type { WalletController } from '../engine/roles/wallet-controller.ts';
import type { SettingsStore } from '../engine/settings/settings-store.ts';
import { UpdateSlot } from '../update-slot.ts';
import type { Wiring } from './wiring.ts';

export interface AppDeps {
  shell: AppInfo['shell'];
  settings: SettingsStore;
  hardware: HardwareService;
  mining: MiningController;
  validating: ValidatingController;
  wallet: WalletController;
}

export function wireApp(w: Wiring, d: AppDeps): { info: AppInfo; updates: UpdateSlot } {
  w.module('app');
  const { paths, logs, version } = w.rt;
  const updates = new UpdateSlot();
  w.bind(
    'update',
    () => updates.view(),
    (l) => updates.onDidChange(l),
  );
  const info: AppInfo = {
    name: 'engy panel',
    version,
    contract: CONTRACT_VERSION,
    shell: d.shell,
    network: d.settings.get().network,
    dataDir: paths.root,
    platform: `${process.platform}-${process.arch}`,
    node: process.versions.node,
  };
  const exportDiagnostics = () =>
    writeDiagnostics({
      dir: join(paths.root, 'diagnostics'),
      logs,
      versions: { app: info.version, node: process.versions.node, platform: info.platform, shell: info.shell },
      sections: {
        settings: d.settings.get(),
        hardware: d.hardware.snapshot(),
        serve: d.mining.serveSnapshot(),
        miners: d.mining.minerSnapshots(),
        validator: d.validating.snapshot(),
        wallet: d.wallet.snapshot(),
      },
    });
  w.handle({
    'app.info': () => info,
    'logs.recent': (req) => queryLogs(logs, req),
    'diagnostics.export': () => exportDiagnostics(),
    'diagnostics.download': () => {
      const written = exportDiagnostics();
      return { fileName: written.path.split(/[\\/]/).pop() ?? 'engy-diagnostics.json', content: readFileSync(written.path, 'utf8'), bytes: written.bytes };
    },
    'update.check': () => updates.check(),
    'update.download': () => updates.download(),
    'update.restart': () => updates.restart(),
  });
  return { info, updates };
}
