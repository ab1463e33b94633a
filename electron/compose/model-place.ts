// The checkpoint the miner serves and the room it needs: the user's folder, or ours under the data dir,
// following Settings. Hardware, checkpoint and pre-flight all measure the same place.
import type { DataPaths } from '../engine/lib/paths.ts';
import { minerModel } from '../engine/lib/model-catalog.ts';
import type { MinerModelSpec } from '../../shared/models.ts';
import { defaultCheckpointDir } from '../engine/serve/checkpoint/checkpoint-folder.ts';
import { checkFolderSpace } from '../engine/serve/checkpoint/folder-space.ts';
import type { SettingsStore } from '../engine/settings/settings-store.ts';
import { freeBytesAt, type FreeBytesAt } from '../engine/lib/disk-free.ts';

export interface ModelPlace {
  spec: MinerModelSpec;
  /** The folder in Settings, else the default one under the data dir. */
  dir(): string;
  defaultDir(): string;
  space(dir?: string): ReturnType<typeof checkFolderSpace>;
  /** How free space is read, for everything that reports on this disk (the hardware report too). */
  freeBytes: FreeBytesAt;
}

export function modelPlace(settings: SettingsStore, paths: DataPaths, freeBytes: FreeBytesAt = freeBytesAt): ModelPlace {
  const spec = minerModel(settings.get().mining.modelId);
  const defaultDir = () => defaultCheckpointDir(paths.checkpoints, spec.checkpoint);
  const dir = () => settings.get().mining.checkpointDir ?? defaultDir();
  const fullDownloadBytes = spec.memory.minDiskGiB * 1024 ** 3;
  return {
    spec,
    dir,
    defaultDir,
    space: (d) => checkFolderSpace({ dir: d ?? dir(), needBytes: fullDownloadBytes, filesBytes: spec.memory.downloadGB * 1e9, freeBytes }),
    freeBytes,
  };
}
