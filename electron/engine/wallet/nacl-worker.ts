// Worker body for nacl-off-thread.ts: Argon2i with 512 MiB would freeze the engine's event loop for seconds.
import { parentPort, workerData } from 'node:worker_threads';
import { deriveNaclKey, naclOpen, naclReady, naclSeal, NaclBadPassword, type KdfLimits } from './nacl-keyfile.ts';
import { errorMessage } from '../../../shared/errors.ts';

export type NaclJob = { op: 'open'; data: Uint8Array; password: string; kdf?: KdfLimits } | { op: 'seal'; data: Uint8Array; password: string; kdf?: KdfLimits };

export type NaclJobResult = { ok: true; data: Uint8Array } | { ok: false; badPassword: boolean; message: string };

async function runJob(job: NaclJob): Promise<NaclJobResult> {
  const s = await naclReady();
  const key = deriveNaclKey(s, job.password, job.kdf);
  try {
    const out = job.op === 'open' ? naclOpen(s, job.data, key) : naclSeal(s, job.data, key);
    // A fresh buffer, so transferring it can never detach memory libsodium still owns.
    return { ok: true, data: out.slice() };
  } catch (e) {
    return { ok: false, badPassword: e instanceof NaclBadPassword, message: errorMessage(e) };
  } finally {
    s.memzero(key);
  }
}

if (parentPort) {
  const port = parentPort;
  runJob(workerData as NaclJob).then(
    (r) => port.postMessage(r, r.ok ? [r.data.buffer as ArrayBuffer] : []),
    (e: unknown) => port.postMessage({ ok: false, badPassword: false, message: errorMessage(e) } satisfies NaclJobResult),
  );
}
