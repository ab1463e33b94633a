import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { MinerModelSpec, ModelCatalog } from '../../../shared/models.ts';
import { DEFAULT_MODEL_ID } from '../../../shared/network.ts';

/**
 * The resources folder: an explicit override (the packaged app passes process.resourcesPath),
 * ENGY_RESOURCES_DIR, or the nearest `resources/models.json` walking up from this file
 * (works from the sources and from dist/).
 */
export function resourcesDir(override?: string): string {
  if (override) return override;
  if (process.env.ENGY_RESOURCES_DIR) return process.env.ENGY_RESOURCES_DIR;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'resources');
    if (existsSync(join(candidate, 'models.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error("resources/models.json not found: set ENGY_RESOURCES_DIR to the app's resources folder.");
}

export function loadModelCatalog(dir = resourcesDir()): ModelCatalog {
  const raw = JSON.parse(readFileSync(join(dir, 'models.json'), 'utf8')) as ModelCatalog;
  if (!raw || !Array.isArray(raw.models)) throw new Error('resources/models.json is not a model catalog');
  return raw;
}

/** The spec a miner can serve; glm-5.2 and other coming-later models are refused here, never started. */
export function minerModel(id = DEFAULT_MODEL_ID, catalog = loadModelCatalog()): MinerModelSpec {
  const entry = catalog.models.find((m) => m.id === id);
  if (!entry) throw new Error(`Unknown model "${id}". Known: ${catalog.models.map((m) => m.id).join(', ')}.`);
  if (!entry.openToMiners) throw new Error(`${entry.displayName} is not open to miners yet: ${entry.comingLater}`);
  return entry;
}
