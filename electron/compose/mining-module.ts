// Mining: the controller (serves, then gateway workers proving in the pool, each keeping its worker id
// across restarts), read once per change and published with the change to its three topics and the
// miner/serve alerts; Start, Stop and the rehearsal.
import type { MinerSnapshot } from '../../shared/miner.ts';
import type { MiningRunSummary } from '../../shared/preflight.ts';
import type { ServeSnapshot } from '../../shared/serve.ts';
import type { HardwareService } from '../engine/hardware/hardware-service.ts';
import { DEFAULT_TARGETS } from '../engine/miner/stats.ts';
import { serveAlerts, workerAlerts } from '../engine/notify/alert-rules.ts';
import type { NotificationService } from '../engine/notify/notification-service.ts';
import type { PreflightService } from '../engine/preflight/preflight-service.ts';
import { RehearsalRunner } from '../engine/preflight/rehearsal.ts';
import type { RehearsalResult } from '../../shared/preflight.ts';
import { ProofPool } from '../engine/proof/proof-pool.ts';
import { MiningController } from '../engine/roles/mining-controller.ts';
import type { SettingsStore } from '../engine/settings/settings-store.ts';
import type { MinerKeyStore } from '../engine/wallet/miner-key-store.ts';
import { ChangeFeed } from './change-feed.ts';
import { GpuWatch } from '../engine/serve/gpu-watch.ts';
import { systemClock } from '../engine/lib/clock.ts';
import type { ModelPlace } from './model-place.ts';
import type { Wiring } from './wiring.ts';

/** Worker threads for body parsing and TOPLOC proofs (started on first use, stopped with the engine). */
export function wireProofPool(w: Wiring): ProofPool {
  w.module('proof-pool');
  return w.add(new ProofPool());
}

export interface MiningView {
  serve: ServeSnapshot | null;
  miners: MinerSnapshot[];
  lastRun: MiningRunSummary | null;
}

export interface MiningDeps {
  settings: SettingsStore;
  hardware: HardwareService;
  minerKeys: MinerKeyStore;
  preflight: PreflightService;
  notifications: NotificationService;
  proofPool: ProofPool;
  place: ModelPlace;
  simulated: boolean;
}

export function wireMining(w: Wiring, d: MiningDeps): { mining: MiningController; feed: ChangeFeed<MiningView> } {
  w.module('mining');
  const { paths, logs, db, versions } = w.rt;
  const gpuWatch = new GpuWatch(systemClock);
  const mining = w.add(
    new MiningController({
      gpuWatch,
      settings: d.settings,
      hardware: d.hardware,
      minerKeys: d.minerKeys,
      logs,
      db,
      paths,
      versions,
      simulated: d.simulated,
      preflight: d.preflight,
      proofPool: d.proofPool,
      workerIdsFile: paths.workerIds,
      rehearse: (urls): Promise<RehearsalResult> => rehearsals.runOn(urls),
    }),
  );
  const feed = w.add(
    new ChangeFeed<MiningView>(
      () => ({ serve: mining.serveSnapshot(), miners: mining.minerSnapshots(), lastRun: mining.lastRunSummary() }),
      (l) => mining.onDidChange(l),
    ),
  );
  w.publish('serve', feed, (v) => v.serve);
  w.publish('miners', feed, (v) => v.miners);
  w.publish('lastMiningRun', feed, (v) => v.lastRun);
  w.add(
    feed.onDidView((v) => {
      d.notifications.update('miner', workerAlerts(v.miners));
      d.notifications.update('serve', serveAlerts(v.serve));
    }),
  );
  const { spec } = d.place;
  const rehearsals = new RehearsalRunner({
    mining: () => d.settings.get().mining,
    serve: () => mining.serveSnapshot(),
    gates: { ttftP99Ms: spec.targets.ttftP99Ms ?? DEFAULT_TARGETS.ttftP99Ms, tpotP99Ms: spec.targets.tpotP99Ms ?? DEFAULT_TARGETS.tpotP99Ms },
    log: logs.logger('rehearsal'),
    // The simulated rig's fake serve answers a smaller wave: Start's rehearsal takes seconds, not minutes (the result says its size).
    ...(d.simulated ? { wave: { concurrent: 8, promptWords: 2_000, maxTokens: 32 } } : {}),
  });
  w.handle({
    'mining.start': async (req) => {
      await mining.start({ skipRehearsal: req?.skipRehearsal === true });
      return null;
    },
    'mining.stop': async () => {
      await mining.stop();
      return null;
    },
    'mining.rehearse': () => rehearsals.run(),
    'gpus.watch': () => ({ leaseMs: gpuWatch.renew() }),
  });
  return { mining, feed };
}
