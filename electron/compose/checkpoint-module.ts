// The checkpoint: the follower of the folder in Settings, its topic and handlers, and the hardware
// verdict's room re-measured when the checkpoint's state or folder changes (at most every few seconds
// while a download writes).
import { CheckpointFollower } from '../engine/roles/checkpoint-follower.ts';
import type { HardwareService } from '../engine/hardware/hardware-service.ts';
import { CheckpointService } from '../engine/serve/checkpoint/checkpoint-service.ts';
import type { SettingsStore } from '../engine/settings/settings-store.ts';
import type { ModelPlace } from './model-place.ts';
import type { Wiring } from './wiring.ts';

export function wireCheckpoint(w: Wiring, settings: SettingsStore, hardware: HardwareService, place: ModelPlace): CheckpointFollower {
  w.module('checkpoint');
  const { logs } = w.rt;
  const { spec } = place;
  const checkpoint = w.add(
    new CheckpointFollower(
      place.dir(),
      (dir) =>
        new CheckpointService({
          repo: spec.checkpoint,
          dir,
          publishedRoot: spec.modelRoot,
          downloadBytes: spec.memory.downloadGB * 1e9,
          freeBytes: place.freeBytes,
          logger: logs.logger('checkpoint'),
        }),
      logs.logger('app'),
    ),
  );
  w.add(settings.onDidChange(() => checkpoint.follow(place.dir())));
  w.bind(
    'checkpoint',
    () => checkpoint.snapshot(),
    (l) => checkpoint.onDidChange(l),
  );
  let spaceKey = '';
  let spaceAt = 0;
  const remeasureSpace = () => {
    const key = `${place.dir()}|${checkpoint.snapshot()?.state ?? ''}`;
    if (key === spaceKey && Date.now() - spaceAt < 5_000) return;
    spaceKey = key;
    spaceAt = Date.now();
    hardware.refreshSpace();
  };
  w.add(checkpoint.onDidChange(remeasureSpace));
  w.add(settings.onDidChange(remeasureSpace));
  w.handle({
    'checkpoint.refresh': () => checkpoint.current.refresh(),
    'checkpoint.download': () => {
      void checkpoint.current.download();
      return null;
    },
    'checkpoint.cancel': () => {
      checkpoint.current.cancel();
      return null;
    },
    'checkpoint.checkFolder': (req) => place.space(req.dir ?? place.defaultDir()),
  });
  return checkpoint;
}
