// Timelock encryption without blocking the caller's loop: one short-lived worker thread per call. Commits are
// rare (one per resubmit interval), so a pool would only hold memory; the ~tens of ms of pairing go elsewhere.
import { Worker } from 'node:worker_threads';
import { TlockDecryptError } from './ibe.ts';
import type { TlockJob, TlockReply } from './tlock-worker.ts';

const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './tlock-worker.ts' : './tlock-worker.js', import.meta.url);
const TIMEOUT_MS = 60_000;

function run(job: TlockJob): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    const worker = new Worker(WORKER_URL);
    worker.unref();
    const done = (f: () => void) => {
      clearTimeout(timer);
      worker.removeAllListeners();
      void worker.terminate();
      f();
    };
    const timer = setTimeout(() => done(() => reject(new Error('timelock encryption did not finish within 60 s'))), TIMEOUT_MS);
    worker.once('message', (r: TlockReply) => {
      if (r.ok) done(() => resolve(new Uint8Array(r.bytes)));
      else done(() => reject(r.name === 'TlockDecryptError' ? new TlockDecryptError(r.message) : new Error(r.message)));
    });
    worker.once('error', (e) => done(() => reject(e)));
    worker.once('exit', (code) => done(() => reject(new Error(`the timelock worker exited (code ${code}) before answering`))));
    worker.postMessage(job);
  });
}

export function tlockEncryptOffThread(plaintext: Uint8Array, round: number, publicKey?: Uint8Array): Promise<Uint8Array> {
  return run({ id: 1, op: 'encrypt', plaintext, round, ...(publicKey ? { publicKey } : {}) });
}

export function tlockDecryptOffThread(ciphertext: Uint8Array, signature: Uint8Array): Promise<Uint8Array> {
  return run({ id: 1, op: 'decrypt', ciphertext, signature });
}
