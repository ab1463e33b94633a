// Hardware: detection, its topic and handlers; a new GPU choice re-checks at once (a new plan on the next start).
import { errorMessage } from '../../shared/errors.ts';
import type { ChainPort, MinerPoolFacts } from '../engine/chain/ports.ts';
import { describeChainError } from '../engine/lib/network-words.ts';
import { hardwareAlternatives } from '../engine/hardware/alternatives.ts';
import { HardwareService } from '../engine/hardware/hardware-service.ts';
import type { SettingsStore } from '../engine/settings/settings-store.ts';
import { inflightRefusal } from '../engine/settings/inflight-limit.ts';
import type { ModelPlace } from './model-place.ts';
import type { Wiring } from './wiring.ts';

export function wireHardware(w: Wiring, settings: SettingsStore, place: ModelPlace, openChain: (url: string) => Promise<ChainPort>): HardwareService {
  w.module('hardware');
  const { paths, logs } = w.rt;
  const log = logs.logger('app');
  const hardware = new HardwareService(
    () => ({ dataDir: paths.root, modelId: settings.get().mining.modelId, allowedGpus: settings.get().mining.gpus, freeBytes: place.freeBytes }),
    logs.logger('hardware'),
    undefined,
    () => place.space(),
  );
  let gpusKey = JSON.stringify(settings.get().mining.gpus);
  w.add(
    settings.onDidChange((s) => {
      if (JSON.stringify(s.mining.gpus) === gpusKey) return;
      gpusKey = JSON.stringify(s.mining.gpus);
      void hardware.get(true).catch((e: unknown) => log.warn(`hardware re-check failed: ${errorMessage(e)}`));
    }),
  );
  // Settings refuse an in-flight override the plan cannot serve, with the plan's limit in the sentence.
  w.add(settings.addCheck((next) => inflightRefusal(next, hardware.snapshot()?.plan ?? null)));
  w.bind(
    'hardware',
    () => hardware.snapshot(),
    (l) => hardware.onDidChange(l),
  );
  w.handle({
    'hardware.report': (req) => hardware.get(req.refresh),
    'hardware.alternatives': async () => {
      // What each option would earn rests on one read of the subnet's miners; without it the options still show.
      const v = settings.get().validating;
      let pool: MinerPoolFacts | null = null;
      let why = "this chain does not give the miners' emission";
      try {
        const chain = await openChain(v.chainUrl);
        try {
          if (chain.minerPool) pool = await chain.minerPool(v.netuid);
        } finally {
          await chain.close();
        }
      } catch (e) {
        why = `the chain could not be read (${describeChainError(e)})`;
      }
      return hardwareAlternatives(place.spec, await hardware.get(), pool, why);
    },
  });
  return hardware;
}
