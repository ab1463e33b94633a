// A miner's worker id, kept across restarts of the same data dir. The gateway keys a worker on its
// worker_id: a fresh id per start (what upstream's engy_miner.py does, uuid4 per process) makes every
// restart a new worker that must pass probe qualification again, so a daemon restarted by systemd,
// an upgrade or a reboot would lose hours. The id is therefore stored per worker name, model and
// declared capacity: a deliberate capacity change still takes a new id (PROTOCOL 3: the gateway keeps
// the capacity recorded at first onboarding), and a different worker on the same box never shares one.
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import { newWorkerId } from './identity.ts';
import { errorMessage } from '../../../shared/errors.ts';

export interface WorkerIdentityKey {
  workerName: string;
  model: string;
  /** The whole concurrency declared (max_inflight_total before leg planning). */
  maxInflight: number;
}

interface StoredId {
  workerId: string;
  createdAt: string;
}

function keyOf(k: WorkerIdentityKey): string {
  return `${k.workerName}|${k.model}|${k.maxInflight}`;
}

function readIds(file: string): Map<string, StoredId> {
  const out = new Map<string, StoredId>();
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return out; // missing or damaged: ids are minted again (one requalification, never a crash)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return out;
  for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof v !== 'object' || v === null) continue;
    const { workerId, createdAt } = v as Record<string, unknown>;
    if (typeof workerId === 'string' && /^[0-9a-f]{32}$/.test(workerId) && typeof createdAt === 'string') out.set(key, { workerId, createdAt });
  }
  return out;
}

/**
 * The worker id for this identity: the stored one, else a new one stored for next time. When the
 * file cannot be written the id still serves this process (the next start then mints another).
 */
export function persistentWorkerId(file: string, k: WorkerIdentityKey, now: () => number = Date.now): { workerId: string; reused: boolean; saveError: string | null } {
  const ids = readIds(file);
  const found = ids.get(keyOf(k));
  if (found) return { workerId: found.workerId, reused: true, saveError: null };
  const workerId = newWorkerId();
  ids.set(keyOf(k), { workerId, createdAt: new Date(now()).toISOString() });
  try {
    writeFileAtomic(file, `${JSON.stringify(Object.fromEntries(ids), null, 1)}\n`);
    return { workerId, reused: false, saveError: null };
  } catch (e) {
    return { workerId, reused: false, saveError: errorMessage(e) };
  }
}
