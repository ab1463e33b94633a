// The data dir is the engine's own: it writes settings, logs, the database and the miner key there,
// and chmods them 0600. A link planted inside would turn those writes against another file (the
// chmod of settings.json once reached /etc/passwd), and a folder another user owns can have its
// entries swapped under us. So at start the places the engine writes are checked with lstat, and
// refused with a sentence when they are links or belong to someone else.
import { lstatSync, mkdirSync, readdirSync, readlinkSync, statSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { dataPaths } from './paths.ts';

/** The entries the engine writes (checkpoints are left out: a link to a bigger disk is a fair use). */
const WRITTEN = [
  'settings.json',
  'headless-token',
  'engy-panel.sqlite',
  'engy-panel.sqlite-wal',
  'engy-panel.sqlite-shm',
  'engy-panel.sqlite-journal',
  'engine.lock',
  'engine.lock.db',
  'logs',
  'secrets',
  'miner',
  'validator',
  'diagnostics',
];
/** Folders whose files are written too: each of their entries is checked. */
const WRITTEN_FOLDERS = ['logs', 'secrets', 'miner', 'validator', 'diagnostics'];
/** Beyond these the user's data dir is left alone (a listing of thousands is no start-up cost to pay). */
const MAX_ENTRIES = 2000;

export class DataDirRefused extends Error {}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * `mkdir -p` that never spins: Node's recursive mkdir loops forever where mkdir answers ENOENT for
 * a parent that exists (/proc), and a synchronous loop is deaf to SIGTERM. One mkdir per missing
 * level, from the nearest existing ancestor down; any failure is thrown as is.
 */
export function makeDirs(path: string, mode: number): void {
  const missing: string[] = [];
  let at = path;
  while (lstatOrNull(at) === null) {
    missing.push(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const dir of missing.reverse()) mkdirSync(dir, { mode });
}

function ownerProblem(path: string, st: Stats, uid: number | undefined): string | null {
  if (uid === undefined || st.uid === uid) return null;
  return `${path} belongs to another user (uid ${st.uid}) but the engine runs as uid ${uid}. Run the engine as that user, give it the folder (chown -R ${uid} ${path}), or choose another --data-dir.`;
}

function linkProblem(path: string): string {
  let to = '?';
  try {
    to = readlinkSync(path);
  } catch {
    // a link that vanished meanwhile: the sentence still names it
  }
  return `${path} is a symbolic link (to ${to}); the engine writes there and would write through it. Replace it with the real file (or remove it), or choose another --data-dir.`;
}

/**
 * Throws DataDirRefused with the sentence for the first link or foreign owner among the places the
 * engine writes. The data dir itself may be a link (a dir moved to a bigger disk) but must be ours.
 */
export function checkDataDir(root: string, uid: number | undefined = process.getuid?.()): void {
  const top = statSync(root);
  const own = ownerProblem(root, top, uid);
  if (own) throw new DataDirRefused(own);
  for (const name of WRITTEN) {
    const path = join(dataPaths(root).root, name);
    const st = lstatOrNull(path);
    if (!st) continue;
    if (st.isSymbolicLink()) throw new DataDirRefused(linkProblem(path));
    const foreign = ownerProblem(path, st, uid);
    if (foreign) throw new DataDirRefused(foreign);
    if (!WRITTEN_FOLDERS.includes(name) || !st.isDirectory()) continue;
    const entries = readdirSync(path).slice(0, MAX_ENTRIES);
    for (const entry of entries) {
      const inner = join(path, entry);
      const ist = lstatOrNull(inner);
      if (!ist) continue;
      if (ist.isSymbolicLink()) throw new DataDirRefused(linkProblem(inner));
      const f = ownerProblem(inner, ist, uid);
      if (f) throw new DataDirRefused(f);
    }
  }
}
