// The prompts one callback takes in (every frame of one read of a gateway leg: ws hands them over
// together), tokenized as one batch.
//
// The native tokenizer encodes on libuv's thread pool and answers through the event loop. A burst of
// routed requests used to be encoded a few at a time, and each wave waited for a pool thread, then for
// the miner's thread, on a box whose cores the serve and the proof work already keep busy: a burst's
// last prompt was ready 20-25 ms after its frame (docs/performance.md, round 10). One batch per read
// makes that one round trip for the frames of a read, and their requests leave together. The batch
// goes at the end of the callback (a microtask), not at the end of the loop turn (setImmediate): the
// first leg's requests then leave while the other legs' frames are still being read (measured: 1.24x
// against 1.32x direct over six alternated pairs). Guessed prompts' confirmations use a batcher of
// their own that waits for the burst to stop arriving (quiet-gather.ts).

export interface BatchTokenizer {
  encode(text: string): Promise<{ getIds(): number[] }>;
  encodeBatch(texts: string[]): Promise<{ getIds(): number[] }[]>;
}

/** Texts per native batch call: a larger burst is split, each part encoded in parallel on the pool. */
export const ENCODE_BATCH_MAX = 64;

/**
 * A text longer than this is encoded by itself at once: a batch answers when its last text is done,
 * and one long prompt (tens of thousands of tokens) would hold every short one taken in beside it.
 */
export const ENCODE_ALONE_CHARS = 16_384;

interface Queued {
  text: string;
  resolve(ids: number[]): void;
  reject(e: unknown): void;
}

export class EncodeBatcher {
  private readonly tokenizer: BatchTokenizer;
  private readonly defer: (fn: () => void) => void;
  private readonly more: (() => void) | undefined;
  private queued: Queued[] = [];
  private scheduled = false;
  private encoding = 0;

  /**
   * `defer` runs the flush once the current callback's own code is done (a test may step it by hand);
   * `more` hears of each text that joins a batch already waiting (quiet-gather.ts uses both).
   */
  constructor(tokenizer: BatchTokenizer, defer: (fn: () => void) => void = queueMicrotask, more?: () => void) {
    this.tokenizer = tokenizer;
    this.defer = defer;
    this.more = more;
  }

  encode(text: string): Promise<number[]> {
    if (text.length > ENCODE_ALONE_CHARS) return this.alone(text);
    return new Promise<number[]>((resolve, reject) => {
      this.queued.push({ text, resolve, reject });
      if (this.scheduled) {
        this.more?.();
        return;
      }
      this.scheduled = true;
      this.defer(() => this.flush());
    });
  }

  /** Texts waiting for their batch to go, and texts the tokenizer has not answered yet. */
  get pending(): { queued: number; encoding: number } {
    return { queued: this.queued.length, encoding: this.encoding };
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.queued;
    this.queued = [];
    for (let i = 0; i < all.length; i += ENCODE_BATCH_MAX) this.send(all.slice(i, i + ENCODE_BATCH_MAX));
  }

  private send(items: Queued[]): void {
    this.encoding += items.length;
    const answered = (): void => {
      this.encoding -= items.length;
    };
    let batch: Promise<{ getIds(): number[] }[]>;
    try {
      batch = this.tokenizer.encodeBatch(items.map((q) => q.text));
    } catch (e) {
      // Thrown, not rejected (a native binding refusing its arguments): the same as a failed batch.
      batch = Promise.reject(e);
    }
    batch.then(
      (encodings) => {
        answered();
        // Read every answer before settling any: an answer that cannot be read (or one missing) sends the
        // whole batch one by one instead of rejecting nobody's promise.
        let ids: number[][];
        try {
          if (encodings.length !== items.length) throw new Error('the batch answered for a different number of texts');
          ids = encodings.map((e) => e.getIds());
        } catch {
          return this.oneByOne(items);
        }
        for (let k = 0; k < items.length; k++) items[k]!.resolve(ids[k]!);
      },
      () => {
        answered();
        this.oneByOne(items);
      },
    );
  }

  /** A batch that failed: each text again by itself, so one text the tokenizer refuses fails alone. */
  private oneByOne(items: Queued[]): void {
    for (const q of items) this.alone(q.text).then(q.resolve, q.reject);
  }

  private async alone(text: string): Promise<number[]> {
    this.encoding++;
    try {
      return (await this.tokenizer.encode(text)).getIds();
    } finally {
      this.encoding--;
    }
  }
}
