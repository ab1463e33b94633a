import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointModelRoot } from '../../miner/identity.ts';
import { checkedHubFile, type HubFile } from './hub-files.ts';
import { MANIFEST_NAME } from './hub-download.ts';

export interface FolderCheck {
  complete: boolean;
  /** Plain-words problems: `model-00002.safetensors missing`, `config.json: 10 bytes, expected 2048`. */
  problems: string[];
  /** Bytes the listing says the folder should hold (null without a listing). */
  expectedBytes: number | null;
}

/** Far above a real listing (a few dozen files): a larger file is not ours. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * The listing a download of ours wrote into the folder. Anything else (missing, too large, not JSON, an
 * entry that is not a relative path with a size) is no listing: the folder is then checked without one,
 * and the next download writes a fresh one.
 */
export function readManifest(dir: string): HubFile[] | null {
  try {
    const file = join(dir, MANIFEST_NAME);
    if (statSync(file).size > MAX_MANIFEST_BYTES) return null;
    const m = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    const files = typeof m === 'object' && m !== null ? (m as Record<string, unknown>).files : undefined;
    if (!Array.isArray(files)) return null;
    const listed = files.map(checkedHubFile);
    return listed.every((f): f is HubFile => f !== null) ? listed : null;
  } catch {
    return null;
  }
}

function sizeOf(path: string): number | null {
  try {
    const s = statSync(path);
    return s.isFile() ? s.size : null;
  } catch {
    return null;
  }
}

/** Shards the safetensors index names (a folder the user brought, with no listing of ours). */
function indexedShards(dir: string): string[] {
  try {
    const idx = JSON.parse(readFileSync(join(dir, 'model.safetensors.index.json'), 'utf8')) as { weight_map?: Record<string, string> };
    return [...new Set(Object.values(idx.weight_map ?? {}))];
  } catch {
    return [];
  }
}

/**
 * Is the folder a complete checkpoint? With a listing (ours, or one passed in): every listed file
 * present with the listed size. Without: config.json and every shard the safetensors index names.
 */
export function checkCheckpointFolder(dir: string, listing: HubFile[] | null = readManifest(dir)): FolderCheck {
  const problems: string[] = [];
  if (!existsSync(dir)) return { complete: false, problems: [`${dir} does not exist`], expectedBytes: listing ? listing.reduce((n, f) => n + f.size, 0) : null };
  if (listing) {
    for (const f of listing) {
      const got = sizeOf(join(dir, f.path));
      if (got === null) problems.push(`${f.path} missing`);
      else if (got !== f.size) problems.push(`${f.path}: ${got} bytes, expected ${f.size}`);
    }
    return { complete: problems.length === 0, problems, expectedBytes: listing.reduce((n, f) => n + f.size, 0) };
  }
  if (sizeOf(join(dir, 'config.json')) === null) problems.push('config.json missing');
  const shards = indexedShards(dir);
  for (const s of shards) if (sizeOf(join(dir, s)) === null) problems.push(`${s} missing`);
  if (shards.length === 0 && !existsSync(join(dir, 'model.safetensors'))) problems.push('no .safetensors weights (and no model.safetensors.index.json)');
  return { complete: problems.length === 0, problems, expectedBytes: null };
}

/** PROTOCOL section 3 identity (the hello's model_root); one implementation, shared with the miner. */
export function checkpointIdentity(dir: string): Promise<string> {
  return checkpointModelRoot(dir);
}

/** Where the panel keeps a repo's checkpoint: `<data>/checkpoints/<owner>/<name>`. */
export function defaultCheckpointDir(checkpointsRoot: string, repo: string): string {
  return join(checkpointsRoot, ...repo.split('/'));
}
