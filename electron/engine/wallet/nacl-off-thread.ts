// Runs the $NACL KDF + box in a short-lived worker thread: one job per worker, so the 512 MiB
// Argon2 arena is returned to the OS as soon as the job ends, and the password never lingers.
import { Worker } from 'node:worker_threads';
import type { KdfLimits } from './nacl-keyfile.ts';
import type { NaclJob, NaclJobResult } from './nacl-worker.ts';
import { siblingWorkerUrl } from '../lib/worker-url.ts';

const WORKER_URL = siblingWorkerUrl(import.meta.url, 'nacl-worker');

function runInWorker(job: NaclJob): Promise<NaclJobResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, { workerData: job });
    let settled = false;
    worker.once('message', (r: NaclJobResult) => {
      settled = true;
      resolve(r);
      void worker.terminate();
    });
    worker.once('error', (e) => {
      if (!settled) reject(e);
      settled = true;
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the keyfile worker stopped (exit ${code}) before answering; the machine may be short of memory (Argon2 needs 512 MiB)`));
      settled = true;
    });
  });
}

/** Opens a $NACL keyfile. Resolves to the plaintext JSON bytes or `{badPassword: true}`. */
export async function naclOpenOffThread(data: Uint8Array, password: string, kdf?: KdfLimits): Promise<NaclJobResult> {
  return runInWorker(kdf ? { op: 'open', data, password, kdf } : { op: 'open', data, password });
}

/** Encrypts keyfile JSON the way btcli does (used for tests and for re-encrypting a coldkey the user imports). */
export async function naclSealOffThread(plaintext: Uint8Array, password: string, kdf?: KdfLimits): Promise<Uint8Array> {
  const r = await runInWorker(kdf ? { op: 'seal', data: plaintext, password, kdf } : { op: 'seal', data: plaintext, password });
  if (!r.ok) throw new Error(r.message);
  return r.data;
}
