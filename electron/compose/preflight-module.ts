// Pre-flight: every blocker between the user and Start, per role, with its topic. Start goes through its gate.
import type { HardwareService } from '../engine/hardware/hardware-service.ts';
import { PreflightService } from '../engine/preflight/preflight-service.ts';
import type { CheckpointFollower } from '../engine/roles/checkpoint-follower.ts';
import type { WalletController } from '../engine/roles/wallet-controller.ts';
import { detectRuntimes } from '../engine/serve/runtime-detect.ts';
import type { SettingsStore } from '../engine/settings/settings-store.ts';
import { loadHotkeyAddress } from '../engine/wallet/hotkey-address.ts';
import type { ModelPlace } from './model-place.ts';
import type { Wiring } from './wiring.ts';

export interface PreflightDeps {
  settings: SettingsStore;
  hardware: HardwareService;
  wallet: WalletController;
  checkpoint: CheckpointFollower;
  place: ModelPlace;
}

export function wirePreflight(w: Wiring, d: PreflightDeps): PreflightService {
  w.module('preflight');
  const { paths, logs } = w.rt;
  const walletDir = (wl: { path: string | null }) => (wl.path ? { walletPath: wl.path } : {});
  const preflight = w.add(
    new PreflightService({
      settings: d.settings,
      hardware: d.hardware,
      wallet: d.wallet,
      checkpoint: d.checkpoint,
      checkpointDir: d.place.dir,
      refreshCheckpoint: () => d.checkpoint.current.refresh(),
      detectRuntimes: () => detectRuntimes({ dataDir: paths.root }),
      space: (dir) => d.place.space(dir),
      hotkeyAddress: (wl) => loadHotkeyAddress({ ...walletDir(wl), wallet: wl.name ?? '', hotkey: wl.hotkey ?? '' }),
      log: logs.logger('preflight'),
    }),
  );
  w.bind(
    'preflight',
    () => preflight.snapshot(),
    (l) => preflight.onDidChange(l),
  );
  return preflight;
}
