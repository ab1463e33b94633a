// The checkpoint's native tokenizer, held by a worker thread of its own (native-tokenizer-worker.ts).
//
// Why a thread: the binding loads a tokenizer.json synchronously (about 570 ms for a 151k-token file on
// this box, more for the checkpoint's 248,320), and that stall landed on the engine's thread as mining
// started. The worker also turns each batch's answers into one flat array, so the engine's thread no
// longer walks 64 native encodings per burst. A worker that dies fails what it was asked (each caller
// gets an error it can report) and the next ask starts a new one: a request is never left hanging, and
// the miner never goes down with it. Closing it (mining stopped) gives the tokenizer's memory back.
import { Worker } from 'node:worker_threads';
import type { BatchTokenizer } from './encode-batcher.ts';
import type { TokenizerAsk, TokenizerAskBody, TokenizerReply } from './native-tokenizer-worker.ts';
import { siblingWorkerUrl } from '../lib/worker-url.ts';

const WORKER_URL = siblingWorkerUrl(import.meta.url, 'native-tokenizer-worker');

/** Long enough to load a 12 MB tokenizer.json on a loaded two-core box; a worker past it is stopped. */
export const LOAD_TIMEOUT_MS = 60_000;

export interface TokenizerThreadOptions {
  /** How long a load may take (LOAD_TIMEOUT_MS by default). */
  timeoutMs?: number;
  /** Starts the load's deadline; returns its cancel (setTimeout by default: a test fires it by hand). */
  setTimer?: (fire: () => void, ms: number) => () => void;
}

const realTimer = (fire: () => void, ms: number): (() => void) => {
  const t = setTimeout(fire, ms);
  return () => clearTimeout(t);
};

/** The thread went away under an ask (not the tokenizer refusing it): asking again may succeed. */
class ThreadStopped extends Error {}

interface Pending {
  resolve(r: TokenizerReply): void;
  reject(e: Error): void;
}

export class NativeTokenizerThread implements BatchTokenizer {
  private readonly path: string;
  private readonly timeoutMs: number;
  private readonly setTimer: (fire: () => void, ms: number) => () => void;
  private worker: Promise<Worker> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  private constructor(path: string, o: TokenizerThreadOptions) {
    this.path = path;
    this.timeoutMs = o.timeoutMs ?? LOAD_TIMEOUT_MS;
    this.setTimer = o.setTimer ?? realTimer;
  }

  /** Resolves once the tokenizer is loaded; rejects with the loader's reason (a missing or broken tokenizer.json). */
  static async open(path: string, o: TokenizerThreadOptions = {}): Promise<NativeTokenizerThread> {
    const t = new NativeTokenizerThread(path, o);
    await t.started();
    return t;
  }

  encode(text: string): Promise<{ getIds(): number[] }> {
    return this.encodeBatch([text]).then((r) => r[0]!);
  }

  async encodeBatch(texts: string[]): Promise<{ getIds(): number[] }[]> {
    const r = await this.ask({ op: 'batch', texts });
    if (!('flat' in r) || r.counts.length !== texts.length) throw new Error('the tokenizer thread answered for a different number of texts');
    const out: { getIds(): number[] }[] = [];
    let at = 0;
    for (const n of r.counts) {
      const ids = Array.from(r.flat.subarray(at, at + n));
      at += n;
      out.push({ getIds: () => ids });
    }
    return out;
  }

  /**
   * A decode comes at a request's end, after its text was streamed: one whose thread died under it is
   * asked once more (of a new thread), as the batcher does for encodes, rather than failing the request.
   */
  async decode(ids: number[], skipSpecial: boolean): Promise<string> {
    let r: TokenizerReply;
    try {
      r = await this.ask({ op: 'decode', ids, skipSpecial });
    } catch (e) {
      if (!(e instanceof ThreadStopped) || this.closed) throw e;
      r = await this.ask({ op: 'decode', ids, skipSpecial });
    }
    if (!('text' in r)) throw new Error('the tokenizer thread answered a decode with no text');
    return r.text;
  }

  /** Stops the thread; asks still waiting fail. Asks after this fail at once. */
  close(): void {
    this.closed = true;
    const w = this.worker;
    this.worker = null;
    this.failAll('the miner stopped');
    void w?.then(
      (x) => x.terminate(),
      () => undefined,
    );
  }

  private async ask(a: TokenizerAskBody): Promise<TokenizerReply> {
    if (this.closed) throw new Error('the tokenizer is closed (the miner stopped)');
    const worker = await this.started();
    // Closed while it waited for the thread to load.
    if (this.closed) throw new Error('the tokenizer is closed (the miner stopped)');
    const id = this.nextId++;
    return new Promise<TokenizerReply>((resolve, reject) => {
      // The thread keeps the process up only while something waits for it.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, {
        resolve: (r) => ('error' in r ? reject(new Error(`the tokenizer refused it: ${r.error}`)) : resolve(r)),
        reject,
      });
      worker.postMessage({ ...a, id } as TokenizerAsk);
    });
  }

  private settle(id: number, r: TokenizerReply | Error, worker: Worker): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (this.pending.size === 0) worker.unref();
    if (r instanceof Error) p.reject(r);
    else p.resolve(r);
  }

  private failAll(why: string): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    const next = this.closed ? '' : '; the next prompt starts it again';
    for (const p of all) p.reject(new ThreadStopped(`the tokenizer's thread stopped before it answered (${why})${next}`));
  }

  /** The loaded worker, started anew if none is running. */
  private started(): Promise<Worker> {
    if (this.worker) return this.worker;
    const w = new Worker(WORKER_URL, { workerData: { path: this.path } });
    const loaded = new Promise<Worker>((resolve, reject) => {
      let up = false;
      // Past the deadline the load fails, and so does every ask until the thread is gone: a thread stuck
      // reading a hung disk may not stop at once, and starting one per ask would pile them up.
      const cancelTimer = this.setTimer(() => {
        void w.terminate();
        reject(new Error(`loading the tokenizer (${this.path}) took over ${Math.round(this.timeoutMs / 1000)} s; check the disk it is on`));
      }, this.timeoutMs);
      const gone = (why: string): void => {
        cancelTimer();
        if (this.worker === loaded) this.worker = null;
        if (!up) reject(new Error(`the tokenizer could not be loaded (${this.path}): ${why}`));
        else this.failAll(why);
      };
      w.on('message', (m: TokenizerReply) => {
        if ('loaded' in m) {
          up = true;
          cancelTimer();
          w.unref();
          resolve(w);
        } else if ('loadFailed' in m) {
          gone(m.loadFailed);
        } else {
          this.settle(m.id, m, w);
        }
      });
      w.on('error', (e) => gone(e.message));
      w.on('exit', (code) => gone(`its thread exited with code ${code}`));
    });
    this.worker = loaded;
    // A load that fails is reported to whoever asked; the next ask tries again.
    loaded.catch(() => undefined);
    return loaded;
  }
}
