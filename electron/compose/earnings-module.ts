// Earnings: realised τ for the selected hotkey, read once per change and published with the change to
// its topic and the earnings alerts; refreshed on a cadence (every 5 s on the simulated network, whose
// epochs close every 8 s, so realised τ shows; every 10 min on a real one).
import { SUBNET_OWNER_HOTKEY } from '../../shared/network.ts';
import { EarningsService, type EarningsChain } from '../engine/earnings/earnings-service.ts';
import { wirePrice } from '../engine/earnings/wire-price.ts';
import { earningsAlerts } from '../engine/notify/alert-rules.ts';
import type { NotificationService } from '../engine/notify/notification-service.ts';
import type { SettingsStore } from '../engine/settings/settings-store.ts';
import { loadHotkeyAddress } from '../engine/wallet/hotkey-address.ts';
import { ChangeFeed } from './change-feed.ts';
import type { Wiring } from './wiring.ts';

export interface EarningsDeps {
  settings: SettingsStore;
  notifications: NotificationService;
  openChain: (url: string) => Promise<EarningsChain>;
  simulated: boolean;
}

export function wireEarnings(w: Wiring, d: EarningsDeps): EarningsService {
  w.module('earnings');
  const { db, logs, paths } = w.rt;
  const selectedHotkey = (): string | null => {
    const wl = d.settings.get().wallet;
    if (!wl.name || !wl.hotkey) return null;
    try {
      return loadHotkeyAddress({ ...(wl.path ? { walletPath: wl.path } : {}), wallet: wl.name, hotkey: wl.hotkey });
    } catch {
      return null;
    }
  };
  const earnings = w.add(
    new EarningsService(
      () => {
        const v = d.settings.get().validating;
        return { hotkey: selectedHotkey, providerUrl: v.providerUrl, masterHotkey: v.masterHotkey, netuid: v.netuid, ownerHotkey: SUBNET_OWNER_HOTKEY, chainUrl: v.chainUrl };
      },
      db,
      () => d.openChain(d.settings.get().validating.chainUrl),
      logs.logger('earnings'),
    ),
  );
  const feed = w.add(
    new ChangeFeed(
      () => earnings.snapshot(),
      (l) => earnings.onDidChange(l),
    ),
  );
  w.publish('earnings', feed, (v) => v);
  w.add(feed.onDidView((v) => d.notifications.update('earnings', earningsAlerts(v))));
  w.handle({ 'earnings.refresh': () => earnings.refresh() });
  // The τ price for the profit figures: its topic is owned here, beside the earnings it prices.
  w.add(
    wirePrice({ settings: d.settings, hub: { bind: (topic, read, onDidChange) => (w.bind(topic, read, onDidChange), { dispose: () => undefined }) }, dataDir: paths.root, log: logs.logger('price') }),
  );
  earnings.start(d.simulated ? 5_000 : 600_000);
  return earnings;
}
