// The fleet: the rigs this panel reaches over SSH (docs/fleet.md), their topic and the fleet.* handlers.
// ENGY_FLEET_SSH_CONFIG names an ssh_config other than ~/.ssh/config (tests point it at a throwaway one).
import { FleetService } from '../engine/fleet/fleet-service.ts';
import type { Wiring } from './wiring.ts';

export function wireFleet(w: Wiring): FleetService {
  w.module('fleet');
  const { paths, logs } = w.rt;
  const fleet = w.add(new FleetService({ dataDir: paths.root, log: logs.logger('fleet'), tools: { configFile: process.env.ENGY_FLEET_SSH_CONFIG || null } }));
  w.bind('fleet', () => fleet.snapshot(), (l) => fleet.onDidChange(l));
  w.handle({
    'fleet.addRig': (req) => fleet.add(req),
    'fleet.removeRig': (req) => (fleet.remove(req.id), null),
    'fleet.acceptHostKey': async (req) => (await fleet.acceptHostKey(req.id, req.fingerprints), null),
    'fleet.retry': (req) => (fleet.retry(req.id), null),
    'fleet.control': (req) => fleet.control(req.ids, req.action),
  });
  return fleet;
}
