// The τ price in the composed engine: one service, its snapshot topic, a fresh read when the currency or
// the source changes in Settings. Kept here so the composition root wires it in one line.
import { join } from 'node:path';
import type { TauPriceSnapshot } from '../../../shared/price.ts';
import type { Disposable } from '../lib/disposable.ts';
import type { Logger } from '../lib/logger.ts';
import type { SettingsStore } from '../settings/settings-store.ts';
import { TauPriceService } from './tau-price.ts';

/** The part of the snapshot hub this needs (the hub lives in electron/contract; engine code does not import it). */
export interface PriceTopicBinder {
  bind(topic: 'price', snapshot: () => TauPriceSnapshot, onDidChange: (l: () => void) => Disposable): Disposable;
}

export function wirePrice(o: { settings: SettingsStore; hub: PriceTopicBinder; dataDir: string; log: Logger }): Disposable {
  const price = new TauPriceService({
    config: () => {
      const s = o.settings.get();
      return { priceUrl: s.profit.priceUrl, currency: s.profit.currency, simulated: s.network === 'simulated' };
    },
    cacheFile: join(o.dataDir, 'tau-price.json'),
    log: o.log,
  });
  const bound = o.hub.bind(
    'price',
    () => price.snapshot(),
    (l) => price.onDidChange(l),
  );
  // The network is part of the source's name (a simulated market is named so): a change re-reads.
  const keyOf = (s: ReturnType<SettingsStore['get']>) => JSON.stringify([s.profit.priceUrl, s.profit.currency, s.network]);
  let key = keyOf(o.settings.get());
  const sub = o.settings.onDidChange((s) => {
    const next = keyOf(s);
    if (next === key) return;
    key = next;
    void price.refresh().catch((e: unknown) => o.log.warn(`τ price refresh failed: ${(e as Error).message}`));
  });
  price.start();
  return {
    dispose: () => {
      price.dispose();
      void sub.dispose();
      void bound.dispose();
    },
  };
}
