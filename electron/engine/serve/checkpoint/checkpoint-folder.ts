import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointModelRoot } from '../../miner/identity.ts';
import type { HubFile } from './hub-files.ts';
import { MANIFEST_NAME } from './hub-download.ts';

export interface FolderCheck {
  complete: boolean;
  /** Plain-words problems: `model-00002.safetensors missing`, `config.json: 10 bytes, expected 2048`. */
  problems: string[];
  /** Bytes the listing says the folder should hold (null without a listing). */
  expectedBytes: number | null;
}

export function readManifest(dir: string): HubFile[] | null {
  try {
    const m = JSON.parse(readFileSync(join(dir, MANIFEST_NAME), 'utf8')) as { files?: unknown };
    return Array.isArray(m.files) ? (m.files as HubFile[]) : null;
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
