// Who this miner is to the gateway: worker name (stable), worker id (per process start),
// checkpoint identity (model_root, PROTOCOL 3).
import { createHash, randomBytes } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** `ins-` + 12 hex of sha256(hostname|model|serve URLs): a restarted process replaces its old registration. */
export function defaultWorkerName(hostname: string, model: string, serveUrls: readonly string[]): string {
  const seed = [hostname, model, serveUrls.join(',')].join('|');
  return 'ins-' + createHash('sha256').update(seed, 'utf8').digest('hex').slice(0, 12);
}

/**
 * Fresh per process start and kept for the engine's life: the gateway keys a worker on it,
 * so a new id means a new worker that must pass probe qualification again.
 */
export function newWorkerId(): string {
  return randomBytes(16).toString('hex');
}

/** sha256(config.json bytes or `{}`, then per *.safetensors sorted by name: basename + decimal size). */
export async function checkpointModelRoot(dir: string): Promise<string> {
  const h = createHash('sha256');
  try {
    h.update(await readFile(join(dir, 'config.json')));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    h.update('{}', 'utf8');
  }
  const shards = (await readdir(dir)).filter((f) => f.endsWith('.safetensors')).sort(byCodePoint);
  for (const name of shards) {
    const s = await stat(join(dir, name));
    h.update(name, 'utf8');
    h.update(String(s.size), 'utf8');
  }
  return h.digest('hex');
}

// Python's sorted() on str compares code points; localeCompare would not match it.
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
