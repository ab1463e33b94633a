// The rigs this panel reaches, in `<data dir>/fleet/rigs.json` (0600 in a 0700 folder), beside the
// panel's own known_hosts. Read through one schema: a damaged or hand-edited file loses only the
// entries that do not parse, never the panel.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import type { RigConfig } from '../../../shared/fleet.ts';
import { writeFileAtomic } from '../lib/atomic-file.ts';

export const MAX_RIGS = 64;

const rigSchema = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^[a-f0-9]{8,32}$/)),
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  target: v.pipe(v.string(), v.minLength(1), v.maxLength(300)),
  command: v.pipe(v.string(), v.minLength(1), v.maxLength(600)),
  dataDir: v.nullable(v.pipe(v.string(), v.maxLength(512))),
});

export function fleetPaths(dataDir: string): { dir: string; rigs: string; knownHosts: string } {
  const dir = join(dataDir, 'fleet');
  return { dir, rigs: join(dir, 'rigs.json'), knownHosts: join(dir, 'known_hosts') };
}

export function loadRigs(file: string, warn: (m: string) => void): RigConfig[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') warn(`${file} could not be read (${(e as Error).message}): starting with no rigs; re-add them in Settings > Rigs.`);
    return [];
  }
  const list = typeof raw === 'object' && raw !== null && !Array.isArray(raw) && Object.hasOwn(raw, 'rigs') ? (raw as { rigs: unknown }).rigs : null;
  if (!Array.isArray(list)) {
    warn(`${file} is not a rig list: starting with no rigs.`);
    return [];
  }
  const rigs: RigConfig[] = [];
  for (const item of list.slice(0, MAX_RIGS)) {
    const r = v.safeParse(rigSchema, item);
    if (r.success && !rigs.some((x) => x.id === r.output.id)) rigs.push(r.output);
    else warn(`a rig entry in ${file} was not understood and is ignored`);
  }
  return rigs;
}

export function saveRigs(file: string, rigs: readonly RigConfig[]): void {
  writeFileAtomic(file, `${JSON.stringify({ rigs }, null, 2)}\n`, 0o600);
}
