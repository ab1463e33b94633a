// A pool of worker threads that parse /generate bodies and build/verify proofs, so the thread
// answering the gateway and the UI is never blocked by a 170 MB body or a proof build.
// Bodies stream in chunk by chunk (bounded in flight); rows and proofs come back as transfers.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { threadSlices } from '../lib/thread-slices.ts';
import { GenerateBodyError } from './body-error.ts';
import type { FromWorker, ParsedGeneration, ToWorker } from './pool-protocol.ts';
import { MINER_PROOF_PARAMS, type Bf16Rows, type ChunkVerification, type ProofParams } from './types.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import type { VerifyOptions } from './verify.ts';
import { siblingWorkerUrl } from '../lib/worker-url.ts';

export type { ParsedGeneration } from './pool-protocol.ts';

export interface ProofPoolOptions {
  /** Worker threads; default: cores - 1, at least 1, at most 4. */
  size?: number;
  /**
   * Bytes a job may have in flight to its worker before ready() waits. Default 2 MiB: every byte
   * of it is resident per request in flight, and a worker parses 2 MiB in a few ms.
   */
  highWaterBytes?: number;
  /** The worker script (tests point this at a double); default proof-worker next to this module. */
  workerUrl?: URL;
  /**
   * A worker with nothing to do for this long is stopped (its thread and heap given back; the next job
   * starts a new one, ~100 ms). Default 60 s: an idle engine holds no proof workers.
   */
  idleMs?: number;
  clock?: Clock;
}

export interface ParseJobOptions {
  format?: 'auto' | 'json' | 'sse';
  /** Build proofs over the rows in the worker (default: the miner's parameters); null to skip. */
  prove?: ProofParams | null;
  /**
   * Build the proofs (skip_prefill) batch by batch while the body is parsed and keep no rows: the
   * worker then holds one batch of rows per job, not the body's (16 MiB for 4096 rows at hidden
   * size 2048). The result's proofs cover the kept rows (keptRowCount); body.rows has no values.
   * Takes the place of `prove`.
   */
  proveAsParsed?: ProofParams;
  onTextDelta?: (delta: string) => void;
  /** Rows the body is expected to hold (the call's max_new_tokens): sized once in the worker. */
  expectRows?: number;
}

interface Pending {
  resolve: (v: never) => void;
  reject: (e: Error) => void;
  slot: Slot;
}

interface Slot {
  worker: Worker;
  active: number;
  /** The idle stop scheduled while `active` is 0. */
  idleTimer: unknown;
}

// The worker runs from source (.ts, type-stripped) or from the build (.js), like this module.
const WORKER_URL = siblingWorkerUrl(import.meta.url, 'proof-worker');

export class ProofPool {
  private readonly slots: (Slot | null)[];
  private readonly highWater: number;
  private readonly workerUrl: URL;
  private readonly pending = new Map<number, Pending>();
  private readonly jobs = new Map<number, ParseJob>();
  private nextId = 1;
  private disposed = false;
  private readonly idleMs: number;
  private readonly clock: Clock;

  constructor(options: ProofPoolOptions = {}) {
    const size = options.size ?? Math.min(4, Math.max(1, availableParallelism() - 1));
    this.slots = Array.from({ length: Math.max(1, size) }, () => null);
    this.highWater = options.highWaterBytes ?? 2 * 1024 * 1024;
    this.workerUrl = options.workerUrl ?? WORKER_URL;
    this.idleMs = options.idleMs ?? 60_000;
    this.clock = options.clock ?? systemClock;
  }

  /** Worker threads running now (none until the first job, none again after idleMs without one). */
  get workers(): number {
    return this.slots.filter((s) => s !== null).length;
  }

  /** Opens a streaming parse: push the body's chunks as they arrive, then end(). */
  openParse(options: ParseJobOptions = {}): ParseJob {
    const id = this.nextId++;
    const slot = this.pickSlot();
    const open: ToWorker = {
      type: 'open',
      id,
      format: options.format ?? 'auto',
      prove: options.proveAsParsed ? null : options.prove === undefined ? MINER_PROOF_PARAMS : options.prove,
      proveAsParsed: options.proveAsParsed ?? null,
      text: options.onTextDelta !== undefined,
      expectRows: options.expectRows ?? 0,
    };
    // The worker hears of a job with its first bytes (or its end), not when it is opened: a miner
    // opens one per request as a burst arrives, and 64 opens would wake the worker 64 times on the
    // cores the serve is making those requests' first tokens on (docs/performance.md, round 17).
    // A job dropped before it sent anything was never the worker's business.
    let told = false;
    const post = (msg: ToWorker, transfer?: ArrayBuffer[]): void => {
      if (!told) {
        told = true;
        if (msg.type === 'abort') return;
        this.send(slot, open);
      }
      this.send(slot, msg, transfer);
    };
    const job = new ParseJob(id, this.highWater, options.onTextDelta, post, () => this.done(slot));
    this.jobs.set(id, job);
    const result = new Promise<ParsedGeneration>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: never) => void, reject, slot });
    });
    job.attach(result, () => this.settle(id, new Error('the parse was aborted')));
    return job;
  }

  /** Parses a whole body from an async source (a fetch Response body, a socket) with backpressure. */
  async parse(source: AsyncIterable<Uint8Array>, options: ParseJobOptions = {}): Promise<ParsedGeneration> {
    const job = this.openParse(options);
    try {
      for await (const chunk of source) {
        job.push(chunk);
        await job.ready();
      }
    } catch (e) {
      job.abort();
      throw e;
    }
    return job.end();
  }

  /** Proofs for rows (the rows' buffer is transferred to the worker: do not use it afterwards). */
  buildProofs(rows: Bf16Rows, params: ProofParams = MINER_PROOF_PARAMS, prefill?: Uint16Array): Promise<string[]> {
    return threadSlices.run('proof hand-off', () => this.call<string[]>((id) => ({ type: 'build', id, rows, params, prefill: prefill ?? null }), transferables(rows.data, prefill)));
  }

  /** Verification per proof (the rows' buffer is transferred to the worker). */
  verifyProofs(rows: Bf16Rows, proofs: readonly (string | null)[], options: VerifyOptions, prefill?: Uint16Array): Promise<ChunkVerification[]> {
    return this.call<ChunkVerification[]>((id) => ({ type: 'verify', id, rows, proofs: [...proofs], options, prefill: prefill ?? null }), transferables(rows.data, prefill));
  }

  /** Each running worker's V8 heap, reserved and used (the benches count the workers' memory per request). */
  async heapStatistics(): Promise<{ totalBytes: number; usedBytes: number }[]> {
    const live = this.slots.filter((s): s is Slot => s !== null);
    return Promise.all(
      live.map(async (s) => {
        const h = await s.worker.getHeapStatistics();
        return { totalBytes: h.total_heap_size, usedBytes: h.used_heap_size };
      }),
    );
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const [id, p] of this.pending) {
      p.reject(new Error('the proof pool was stopped'));
      this.pending.delete(id);
    }
    for (const s of this.slots) if (s?.idleTimer) this.clock.clearTimeout(s.idleTimer);
    await Promise.all(this.slots.map((s) => s?.worker.terminate()));
  }

  private call<T>(make: (id: number) => ToWorker, transfer: ArrayBuffer[]): Promise<T> {
    const id = this.nextId++;
    const slot = this.pickSlot();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: never) => void, reject, slot });
      this.send(slot, make(id), transfer);
    }).finally(() => this.done(slot));
  }

  /** One job fewer on the slot; the last one out starts its idle countdown. */
  private done(slot: Slot): void {
    slot.active--;
    if (slot.active > 0 || this.disposed) return;
    slot.idleTimer = this.clock.setTimeout(() => {
      slot.idleTimer = null;
      const index = this.slots.indexOf(slot);
      if (slot.active > 0 || index < 0) return;
      this.slots[index] = null;
      void slot.worker.terminate();
    }, this.idleMs);
  }

  private pickSlot(): Slot {
    if (this.disposed) throw new Error('the proof pool was stopped');
    // A running worker with nothing to do first (no new thread for it), then a new worker, then the least busy.
    let best = this.slots.findIndex((s) => s !== null && s.active === 0);
    if (best < 0) best = this.slots.findIndex((s) => s === null);
    if (best < 0) {
      best = 0;
      for (let i = 1; i < this.slots.length; i++) if (this.slots[i]!.active < this.slots[best]!.active) best = i;
    }
    const slot = this.slots[best] ?? this.spawn(best);
    if (slot.idleTimer !== null) {
      this.clock.clearTimeout(slot.idleTimer);
      slot.idleTimer = null;
    }
    slot.active++;
    return slot;
  }

  private spawn(index: number): Slot {
    const worker = new Worker(this.workerUrl);
    worker.unref();
    const slot: Slot = { worker, active: 0, idleTimer: null };
    this.slots[index] = slot;
    worker.on('message', (msg: FromWorker) => this.onMessage(msg));
    const lost = (why: string): void => {
      if (this.slots[index] === slot) this.slots[index] = null;
      for (const [id, p] of this.pending) {
        if (p.slot !== slot) continue;
        this.pending.delete(id);
        this.jobs.delete(id);
        p.reject(new Error(`a proof worker stopped unexpectedly (${why})`));
      }
    };
    worker.on('error', (e) => lost(e.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    return slot;
  }

  private send(slot: Slot, msg: ToWorker, transfer: ArrayBuffer[] = []): void {
    slot.worker.postMessage(msg, transfer);
  }

  private settle(id: number, error: Error): void {
    const p = this.pending.get(id);
    this.pending.delete(id);
    this.jobs.delete(id);
    p?.reject(error);
  }

  private onMessage(msg: FromWorker): void {
    if (!threadSlices.enabled) return this.handle(msg);
    threadSlices.run(msg.type === 'parsed' ? 'parse result in' : msg.type === 'built' ? 'proofs in' : 'proof pool message', () => this.handle(msg));
  }

  private handle(msg: FromWorker): void {
    if (msg.type === 'text') {
      this.jobs.get(msg.id)?.textDelta(msg.delta);
      return;
    }
    if (msg.type === 'consumed') {
      this.jobs.get(msg.id)?.consumed(msg.bytes);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    this.jobs.delete(msg.id);
    switch (msg.type) {
      case 'parsed':
        p.resolve(msg.result as never);
        return;
      case 'built':
        p.resolve(msg.proofs as never);
        return;
      case 'verified':
        p.resolve(msg.results as never);
        return;
      case 'error':
        p.reject(msg.name === 'GenerateBodyError' ? new GenerateBodyError(msg.message) : new Error(msg.message));
        return;
    }
  }
}

function transferables(data: Uint16Array, prefill?: Uint16Array): ArrayBuffer[] {
  const list = [data.buffer as ArrayBuffer];
  if (prefill && prefill.buffer !== data.buffer) list.push(prefill.buffer as ArrayBuffer);
  return list;
}

/** One body being parsed in a worker. */
export class ParseJob {
  readonly id: number;
  private readonly highWater: number;
  private readonly onText: ((delta: string) => void) | undefined;
  private readonly post: (msg: ToWorker, transfer?: ArrayBuffer[]) => void;
  private readonly release: () => void;
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  private result: Promise<ParsedGeneration> | null = null;
  private cancel: () => void = () => undefined;
  private closed = false;
  /** Chunks are gathered into blocks of this size before they are sent (a quarter of the high-water mark, at most 64 KiB). */
  private readonly blockBytes: number;
  private block: Uint8Array | null = null;
  private blockLen = 0;

  constructor(id: number, highWater: number, onText: ((delta: string) => void) | undefined, post: (msg: ToWorker, transfer?: ArrayBuffer[]) => void, release: () => void) {
    this.id = id;
    this.highWater = highWater;
    this.blockBytes = Math.max(1, Math.min(64 * 1024, Math.floor(highWater / 4)));
    this.onText = onText;
    this.post = post;
    this.release = release;
  }

  /** @internal */
  attach(result: Promise<ParsedGeneration>, cancel: () => void): void {
    this.cancel = cancel;
    this.result = result.finally(() => {
      this.closed = true;
      this.release();
      this.wake();
    });
    // A failure is reported by end(); never as an unhandled rejection in between.
    this.result.catch(() => undefined);
  }

  /**
   * Sends a chunk (copied: the caller keeps its buffer). False once over the high-water mark:
   * then await ready() before the next push.
   */
  push(chunk: Uint8Array): boolean {
    // Per chunk: no closure at all unless the bench records slices.
    return threadSlices.enabled ? threadSlices.run('parser chunk hand-off', () => this.pushNow(chunk)) : this.pushNow(chunk);
  }

  private pushNow(chunk: Uint8Array): boolean {
    if (this.closed) return false;
    // Copied into a block of its own, whatever the chunk is: Buffer#slice() returns a view (of a
    // socket's or of Node's shared Buffer pool memory), which must not be transferred. Socket reads
    // are a few KiB: one message per block instead of one per read (a 4096-row body is ~17,000
    // reads) saves this thread the per-message work and its garbage. A partly filled block goes
    // with the next chunk that fills it, or at end(): the worker needs the body's bytes by the
    // end, and text for listeners is the caller's to scan (onTextDelta comes per block).
    const size = this.blockBytes;
    // The common case, a read that fits in the block: one copy, no view object per read.
    if (this.blockLen + chunk.byteLength < size) {
      this.block ??= new Uint8Array(size);
      this.block.set(chunk, this.blockLen);
      this.blockLen += chunk.byteLength;
      return this.inFlight + this.blockLen < this.highWater;
    }
    let from = 0;
    while (from < chunk.byteLength) {
      this.block ??= new Uint8Array(size);
      const n = Math.min(size - this.blockLen, chunk.byteLength - from);
      this.block.set(chunk.subarray(from, from + n), this.blockLen);
      this.blockLen += n;
      from += n;
      if (this.blockLen === size) this.flush();
    }
    return this.inFlight + this.blockLen < this.highWater;
  }

  /** Sends the block being filled (trimmed to its bytes) to the worker. */
  private flush(): void {
    const block = this.block;
    if (block === null || this.blockLen === 0) return;
    const bytes = this.blockLen === block.byteLength ? block : block.slice(0, this.blockLen);
    this.block = null;
    this.blockLen = 0;
    this.inFlight += bytes.byteLength;
    this.post({ type: 'chunk', id: this.id, bytes }, [bytes.buffer as ArrayBuffer]);
  }

  /** Resolves when the worker has caught up below the high-water mark (or the job ended). */
  ready(): Promise<void> {
    if (this.inFlight + this.blockLen < this.highWater || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** No more chunks: resolves with the parsed body (and proofs), or rejects with the parse error. */
  end(): Promise<ParsedGeneration> {
    if (!this.closed) {
      this.flush();
      this.post({ type: 'end', id: this.id });
    }
    return this.result!;
  }

  /** Drops the job (the buyer left): the worker forgets it, end() is never needed. */
  abort(): void {
    if (this.closed) return;
    this.closed = true;
    this.block = null;
    this.blockLen = 0;
    this.post({ type: 'abort', id: this.id });
    this.cancel();
  }

  /** @internal */
  textDelta(delta: string): void {
    this.onText?.(delta);
  }

  /** @internal */
  consumed(bytes: number): void {
    this.inFlight -= bytes;
    if (this.inFlight + this.blockLen < this.highWater) this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
