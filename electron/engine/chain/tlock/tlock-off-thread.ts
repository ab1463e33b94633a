// Timelock encryption without blocking the caller's loop: a BLS12-381 pairing in JS takes tens of milliseconds
// (more on a busy machine), so it runs on a worker thread. The worker starts on first use (loading the curve code
// costs a second or more under load), serves calls in order, and exits after a minute idle: commits are rare.
import { Worker } from 'node:worker_threads';
import type { TlockJob, TlockReply } from './tlock-worker.ts';
import { siblingWorkerUrl } from '../../lib/worker-url.ts';

const WORKER_URL = siblingWorkerUrl(import.meta.url, 'tlock-worker');
const CALL_TIMEOUT_MS = 60_000;
const IDLE_MS = 60_000;

type JobBody = { op: 'encrypt'; plaintext: Uint8Array; round: number; publicKey?: Uint8Array };
type Waiter = { resolve: (b: Uint8Array) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> };

let worker: Worker | null = null;
let idleTimer: ReturnType<typeof setTimeout> | undefined;
let nextId = 1;
const waiting = new Map<number, Waiter>();

function failAll(e: Error): void {
  for (const [id, w] of waiting) {
    clearTimeout(w.timer);
    waiting.delete(id);
    w.reject(e);
  }
}

function retire(w: Worker): void {
  if (worker === w) worker = null;
  w.removeAllListeners();
  void w.terminate();
}

function ensureWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_URL);
  w.unref();
  w.on('message', (r: TlockReply) => {
    const waiter = waiting.get(r.id);
    if (!waiter) return;
    waiting.delete(r.id);
    clearTimeout(waiter.timer);
    if (r.ok) waiter.resolve(new Uint8Array(r.bytes));
    else waiter.reject(new Error(r.message));
    armIdle();
  });
  w.on('error', (e) => {
    retire(w);
    failAll(e);
  });
  w.on('exit', (code) => {
    retire(w);
    failAll(new Error(`the timelock worker exited (code ${code}) before answering`));
  });
  worker = w;
  return w;
}

function armIdle(): void {
  clearTimeout(idleTimer);
  if (waiting.size > 0) return;
  idleTimer = setTimeout(() => {
    if (worker && waiting.size === 0) retire(worker);
  }, IDLE_MS);
  idleTimer.unref();
}

function run(job: JobBody): Promise<Uint8Array> {
  clearTimeout(idleTimer);
  const w = ensureWorker();
  const id = nextId++;
  return new Promise<Uint8Array>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      // A wedged worker is replaced; whatever else waited on it fails and is retried by its caller.
      retire(w);
      failAll(new Error('timelock encryption did not finish within 60 s'));
      reject(new Error('timelock encryption did not finish within 60 s'));
    }, CALL_TIMEOUT_MS);
    waiting.set(id, { resolve, reject, timer });
    w.postMessage({ ...job, id } satisfies TlockJob);
  });
}

export function tlockEncryptOffThread(plaintext: Uint8Array, round: number, publicKey?: Uint8Array): Promise<Uint8Array> {
  return run({ op: 'encrypt', plaintext, round, ...(publicKey ? { publicKey } : {}) });
}

/** Stop the worker now (tests, shutdown); the next call starts a new one. */
export async function stopTlockWorker(): Promise<void> {
  clearTimeout(idleTimer);
  const w = worker;
  if (!w) return;
  retire(w);
  failAll(new Error('the timelock worker was stopped'));
}
