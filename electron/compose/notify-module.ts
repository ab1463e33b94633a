// Alerts: the notification service (kept in the database), what the runtime repaired at start, the
// storage watch (a full disk said once as an alert and at most once a minute in the log, never silent),
// and for the panel the webhook with the notifications topic.
import { hostname } from 'node:os';
import { AlertWebhook, AlertWebhookStore } from '../engine/notify/alert-webhook.ts';
import { startupAlerts } from '../engine/notify/alert-rules.ts';
import { NotificationService } from '../engine/notify/notification-service.ts';
import { NotificationStore } from '../engine/notify/notification-store.ts';
import { watchStorage } from '../engine/notify/storage-watch.ts';
import type { NotificationKind } from '../../shared/settings.ts';
import type { Wiring } from './wiring.ts';

export function wireNotify(w: Wiring, muted: () => readonly NotificationKind[]): NotificationService {
  w.module('notify');
  const notifications = new NotificationService(muted, Date.now, new NotificationStore(w.rt.db));
  notifications.update('startup', startupAlerts(w.rt.warnings));
  return notifications;
}

export function wireStorageWatch(w: Wiring, notifications: NotificationService, logName: string): void {
  w.module('storage-watch');
  w.add(watchStorage(w.rt.db, notifications, w.rt.logs.logger(logName), w.rt.paths.root));
}

/** New alerts also go to the user's webhook, if one is set: a rig nobody looks at can still say it stopped. */
export function wireWebhook(w: Wiring, notifications: NotificationService): AlertWebhook {
  w.module('webhook');
  const { paths, logs } = w.rt;
  const webhook = w.add(new AlertWebhook({ store: new AlertWebhookStore({ secretsDir: paths.secrets, redactor: logs.redactor }), log: logs.logger('alerts'), rig: hostname() }));
  w.add(notifications.onNotification((n) => webhook.notify(n)));
  w.bind(
    'notifications',
    () => ({ ...notifications.snapshot(), webhook: webhook.status() }),
    (l) => {
      const subs = [notifications.onDidChange(l), webhook.onDidChange(l)];
      return { dispose: () => subs.forEach((d) => void d.dispose()) };
    },
  );
  w.handle({
    'alerts.setWebhook': (req) => webhook.set(req.url),
    'alerts.testWebhook': () => webhook.test(),
  });
  return webhook;
}
