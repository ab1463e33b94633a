// The fast encoder (ascii-bpe.ts) compiled on a short-lived worker thread (ascii-bpe-worker.ts says
// why), its tables handed back without a copy. Whatever goes wrong there (a file that cannot be read or
// parsed, a worker that dies or hangs) only means the fast encoder is not used: every prompt then waits
// for the native tokenizer, as it did before there was one.
import { Worker } from 'node:worker_threads';
import { AsciiBpe } from './ascii-bpe.ts';
import type { AsciiBpeReply } from './ascii-bpe-worker.ts';
import { siblingWorkerUrl } from '../lib/worker-url.ts';

const WORKER_URL = siblingWorkerUrl(import.meta.url, 'ascii-bpe-worker');

/** Long enough for a 12 MB tokenizer.json on a loaded two-core box; a worker past it is stopped. */
export const COMPILE_TIMEOUT_MS = 60_000;

export function loadAsciiBpe(tokenizerJson: string, timeoutMs = COMPILE_TIMEOUT_MS): Promise<AsciiBpe | { unsupported: string }> {
  return new Promise((resolve) => {
    let settled = false;
    const worker = new Worker(WORKER_URL, { workerData: { path: tokenizerJson } });
    const done = (r: AsciiBpe | { unsupported: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(r);
    };
    const timer = setTimeout(() => done({ unsupported: `compiling it took over ${Math.round(timeoutMs / 1000)} s` }), timeoutMs);
    worker.once('message', (r: AsciiBpeReply) => done('parts' in r ? AsciiBpe.fromParts(r.parts) : r));
    worker.once('error', (e) => done({ unsupported: `its worker failed: ${e.message}` }));
    worker.once('exit', (code) => done({ unsupported: `its worker stopped (exit ${code}) before answering` }));
  });
}
