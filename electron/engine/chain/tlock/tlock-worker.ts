// Worker side of tlock-off-thread.ts: one encryption per message (the engine never decrypts: the chain does), on its own thread, because a
// BLS12-381 pairing in JS takes tens of milliseconds and the engine's loop must not stall for it.
import { parentPort } from 'node:worker_threads';
import { tlockEncrypt } from './ibe.ts';

export type TlockJob = { id: number; op: 'encrypt'; plaintext: Uint8Array; round: number; publicKey?: Uint8Array };
export type TlockReply = { id: number; ok: true; bytes: Uint8Array } | { id: number; ok: false; name: string; message: string };

const port = parentPort;
if (!port) throw new Error('tlock-worker.ts runs only as a worker thread');

port.on('message', (job: TlockJob) => {
  try {
    const bytes = tlockEncrypt(job.plaintext, job.round, job.publicKey ? { publicKey: job.publicKey } : {});
    port.postMessage({ id: job.id, ok: true, bytes } satisfies TlockReply);
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    port.postMessage({ id: job.id, ok: false, name: err.name, message: err.message } satisfies TlockReply);
  }
});
