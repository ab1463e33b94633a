// Validating from the user's settings: the controller read once per change, published with the change
// to its topic and the validator alerts; Start and Stop go through the pre-flight gate.
import type { ValidatorSnapshot } from '../../shared/validator.ts';
import type { ChainPort } from '../engine/chain/ports.ts';
import { validatorAlerts } from '../engine/notify/alert-rules.ts';
import type { NotificationService } from '../engine/notify/notification-service.ts';
import type { PreflightService } from '../engine/preflight/preflight-service.ts';
import { ValidatingController } from '../engine/roles/validating-controller.ts';
import { heartbeatVersion } from '../engine/validator/heartbeat.ts';
import type { SettingsStore } from '../engine/settings/settings-store.ts';
import { ChangeFeed } from './change-feed.ts';
import type { Wiring } from './wiring.ts';

export interface ValidatingDeps {
  settings: SettingsStore;
  preflight: PreflightService;
  notifications: NotificationService;
  openChain: (url: string) => Promise<ChainPort>;
}

export function wireValidating(w: Wiring, d: ValidatingDeps): { validating: ValidatingController; feed: ChangeFeed<ValidatorSnapshot | null> } {
  w.module('validating');
  const { paths, logs, db, version } = w.rt;
  const validating = w.add(new ValidatingController({ settings: d.settings, logs, db, paths, version: heartbeatVersion(version), openChain: d.openChain, preflight: d.preflight }));
  const feed = w.add(
    new ChangeFeed(
      () => validating.snapshot(),
      (l) => validating.onDidChange(l),
    ),
  );
  w.publish('validator', feed, (v) => v);
  w.add(feed.onDidView((v) => d.notifications.update('validator', validatorAlerts(v, Date.now()))));
  w.handle({
    'validator.start': async () => {
      await validating.start();
      return null;
    },
    'validator.stop': async () => {
      await validating.stop();
      return null;
    },
  });
  return { validating, feed };
}
