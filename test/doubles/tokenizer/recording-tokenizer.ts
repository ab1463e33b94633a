// TEST DOUBLE: wraps a real tokenizer (the fixture checkpoint's) for EncodeBatcher's tests. It records
// every call the batcher makes and, when told, refuses a batch or a text, as a native tokenizer that
// failed would. The ids it answers are the real tokenizer's.
import type { BatchTokenizer } from '../../../electron/engine/miner/encode-batcher.ts';

export type TokenizerCall = { kind: 'batch'; texts: string[] } | { kind: 'single'; text: string };

export interface RecordingOptions {
  /** Every batch call fails. */
  failBatches?: boolean;
  /** Every batch call throws before returning a promise, as a native binding refusing its arguments does. */
  throwBatches?: boolean;
  /** A batch call answers with one encoding fewer than it was given. */
  shortBatches?: boolean;
  /** A batch call answers with encodings whose ids cannot be read (getIds throws). */
  unreadableBatches?: boolean;
  /** A single encode of a text holding this marker fails. */
  refuseMarker?: string;
}

export class RecordingTokenizer implements BatchTokenizer {
  readonly calls: TokenizerCall[] = [];
  private readonly real: BatchTokenizer;
  private readonly o: RecordingOptions;

  constructor(real: BatchTokenizer, o: RecordingOptions = {}) {
    this.real = real;
    this.o = o;
  }

  encode(text: string): Promise<{ getIds(): number[] }> {
    this.calls.push({ kind: 'single', text });
    if (this.o.refuseMarker !== undefined && text.includes(this.o.refuseMarker)) return Promise.reject(new Error('recording tokenizer: refused this text'));
    return this.real.encode(text);
  }

  encodeBatch(texts: string[]): Promise<{ getIds(): number[] }[]> {
    this.calls.push({ kind: 'batch', texts: [...texts] });
    if (this.o.throwBatches) throw new TypeError('recording tokenizer: the batch call threw');
    if (this.o.failBatches) return Promise.reject(new Error('recording tokenizer: the batch failed'));
    return this.real.encodeBatch(texts).then((out) => {
      if (this.o.unreadableBatches)
        return out.map(() => ({
          getIds: (): number[] => {
            throw new Error('recording tokenizer: these ids cannot be read');
          },
        }));
      return this.o.shortBatches ? out.slice(0, -1) : out;
    });
  }
}
