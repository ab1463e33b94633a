// The fleet: the rigs this panel reaches over SSH (docs/fleet.md), their topic and the fleet.* handlers,
// the relay behind a rig's full panel (the `rig` event), and rig alerts forwarded to the webhook.
// ENGY_FLEET_SSH_CONFIG names an ssh_config other than ~/.ssh/config (tests point it at a throwaway one).
import { AppFailure } from '../../shared/errors.ts';
import type { NotificationKind } from '../../shared/settings.ts';
import { FleetService } from '../engine/fleet/fleet-service.ts';
import { panelPostsRigAlert } from '../engine/fleet/rig-alerts.ts';
import type { AlertWebhook } from '../engine/notify/alert-webhook.ts';
import type { Wiring } from './wiring.ts';

export interface FleetWiringDeps {
  /** The panel's own webhook: a rig's new alert is posted here only when the rig has no webhook itself. */
  webhook: Pick<AlertWebhook, 'notify'>;
  /** The kinds muted in this panel's settings: muted for the rigs' alerts it forwards too. */
  muted: () => readonly NotificationKind[];
}

export function wireFleet(w: Wiring, deps: FleetWiringDeps): FleetService {
  w.module('fleet');
  const { paths, logs } = w.rt;
  const log = logs.logger('fleet');
  const fleet = w.add(new FleetService({ dataDir: paths.root, log, tools: { configFile: process.env.ENGY_FLEET_SSH_CONFIG || null } }));
  w.bind(
    'fleet',
    () => fleet.snapshot(),
    (l) => fleet.onDidChange(l),
  );
  w.add(fleet.onRelay((ev) => w.hub.rig(ev)));
  w.add(
    fleet.onRigAlert((ev) => {
      if (!panelPostsRigAlert(ev, deps.muted())) return;
      const { alert, kind } = ev;
      log.info(`${alert.rigName}: new alert "${alert.title}" posted to this panel's webhook (the rig has none of its own)`);
      deps.webhook.notify({ title: alert.title, body: alert.body, severity: alert.severity, at: alert.at, kind }, alert.rigName);
    }),
  );
  w.handle({
    'fleet.addRig': (req) => fleet.add(req),
    'fleet.removeRig': (req) => (fleet.remove(req.id), null),
    'fleet.acceptHostKey': async (req) => (await fleet.acceptHostKey(req.id, req.fingerprints), null),
    'fleet.retry': (req) => (fleet.retry(req.id), null),
    'fleet.control': (req) => fleet.control(req.ids, req.action),
    'fleet.watch': (req) => (fleet.watch(req.id, req.fresh === true), null),
    'fleet.rigInvoke': async (req) => {
      const r = await fleet.rigInvoke(req.id, req.method, req.req);
      if (!r.ok) throw new AppFailure(r.error.code, r.error.message);
      return r.value;
    },
  });
  return fleet;
}
