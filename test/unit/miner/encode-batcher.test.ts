// EncodeBatcher: the prompts one callback takes in go to the tokenizer as one batch (encode-batcher.ts
// says why); each gets its own ids, exactly as a lone encode gives them; a long text and a failed
// batch are handled one by one. The end of the callback is stepped by hand (the batcher's `defer`).
import { join } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { describe, expect, it } from 'vitest';
import { ENCODE_ALONE_CHARS, ENCODE_BATCH_MAX, EncodeBatcher } from '../../../electron/engine/miner/encode-batcher.ts';
import { RecordingTokenizer, type RecordingOptions } from '../../doubles/tokenizer/recording-tokenizer.ts';

const real = Tokenizer.fromFile(join(import.meta.dirname, '..', '..', 'fixtures', 'checkpoint-tiny', 'tokenizer.json'));
const alone = async (text: string): Promise<number[]> => (await real.encode(text)).getIds();
const text = (i: number): string => `<|im_start|>user\nQuestion ${i}: how does a river carve a valley?<|im_end|>\n<|im_start|>assistant\n`;

function setup(o: RecordingOptions = {}): { batcher: EncodeBatcher; tok: RecordingTokenizer; callbackEnds: () => void } {
  const tok = new RecordingTokenizer(real, o);
  const deferred: (() => void)[] = [];
  const batcher = new EncodeBatcher(tok, (fn) => deferred.push(fn));
  return { batcher, tok, callbackEnds: () => deferred.splice(0).forEach((fn) => fn()) };
}

describe('EncodeBatcher', () => {
  it("encodes the prompts one callback takes in as one batch, each with a lone encode's ids", async () => {
    const { batcher, tok, callbackEnds } = setup();
    // Hostile texts ride along: empty, a prototype name, control bytes.
    const texts = [...Array.from({ length: 20 }, (_, i) => text(i)), '', '__proto__', 'constructor\u0000\u001b[0m'];
    const results = texts.map((t) => batcher.encode(t));
    expect(tok.calls).toEqual([]);
    expect(batcher.pending).toEqual({ queued: texts.length, encoding: 0 });
    callbackEnds();
    expect(tok.calls).toEqual([{ kind: 'batch', texts }]);
    expect(batcher.pending).toEqual({ queued: 0, encoding: texts.length });
    const ids = await Promise.all(results);
    for (let i = 0; i < texts.length; i++) expect(ids[i]).toEqual(await alone(texts[i]!));
    expect(ids[3]).not.toEqual(ids[4]);
    expect(batcher.pending).toEqual({ queued: 0, encoding: 0 });
  });

  it(`splits more than ${ENCODE_BATCH_MAX} prompts into batches of at most ${ENCODE_BATCH_MAX}`, async () => {
    const { batcher, tok, callbackEnds } = setup();
    const texts = Array.from({ length: ENCODE_BATCH_MAX + 6 }, (_, i) => text(i));
    const results = Promise.all(texts.map((t) => batcher.encode(t)));
    callbackEnds();
    expect(tok.calls.map((c) => (c.kind === 'batch' ? c.texts.length : 'single'))).toEqual([ENCODE_BATCH_MAX, 6]);
    expect((await results)[ENCODE_BATCH_MAX + 5]).toEqual(await alone(texts[ENCODE_BATCH_MAX + 5]!));
  });

  it('a prompt taken in after the batch went out starts a batch of its own', async () => {
    const { batcher, tok, callbackEnds } = setup();
    const first = batcher.encode(text(1));
    callbackEnds();
    const second = batcher.encode(text(2));
    callbackEnds();
    expect(tok.calls).toEqual([
      { kind: 'batch', texts: [text(1)] },
      { kind: 'batch', texts: [text(2)] },
    ]);
    expect(await second).toEqual(await alone(text(2)));
    expect(await first).toEqual(await alone(text(1)));
  });

  it('tells `more` of each text that joins a batch still waiting, not of one that starts a batch', async () => {
    const tok = new RecordingTokenizer(real);
    const deferred: (() => void)[] = [];
    let more = 0;
    const batcher = new EncodeBatcher(
      tok,
      (fn) => deferred.push(fn),
      () => more++,
    );
    const waits = [1, 2, 3].map((i) => batcher.encode(text(i)));
    expect([deferred.length, more]).toEqual([1, 2]);
    deferred.splice(0).forEach((fn) => fn());
    waits.push(batcher.encode(text(4)));
    expect([deferred.length, more]).toEqual([1, 2]);
    deferred.splice(0).forEach((fn) => fn());
    expect(await Promise.all(waits)).toEqual(await Promise.all([1, 2, 3, 4].map((i) => alone(text(i)))));
  });

  it('encodes a long text by itself at once instead of holding the short ones taken in with it', async () => {
    const { batcher, tok, callbackEnds } = setup();
    const long = 'the river carves the valley '.repeat(Math.ceil(ENCODE_ALONE_CHARS / 28) + 1);
    expect(long.length).toBeGreaterThan(ENCODE_ALONE_CHARS);
    const short = batcher.encode(text(1));
    const big = batcher.encode(long);
    expect(tok.calls).toEqual([{ kind: 'single', text: long }]);
    callbackEnds();
    expect(tok.calls[1]).toEqual({ kind: 'batch', texts: [text(1)] });
    expect(await big).toEqual(await alone(long));
    expect(await short).toEqual(await alone(text(1)));
    expect(batcher.pending).toEqual({ queued: 0, encoding: 0 });
  });

  it('a failed batch is encoded again one by one: only the text the tokenizer refuses fails', async () => {
    const { batcher, tok, callbackEnds } = setup({ failBatches: true, refuseMarker: 'POISON' });
    const results = [text(1), 'POISON', text(2)].map((t) => batcher.encode(t));
    callbackEnds();
    await expect(results[1]).rejects.toThrow('refused this text');
    expect(await results[0]).toEqual(await alone(text(1)));
    expect(await results[2]).toEqual(await alone(text(2)));
    expect(tok.calls.map((c) => c.kind)).toEqual(['batch', 'single', 'single', 'single']);
    expect(batcher.pending).toEqual({ queued: 0, encoding: 0 });
  });

  it('a batch call that throws instead of rejecting is encoded again one by one, and nothing is thrown', async () => {
    const { batcher, tok, callbackEnds } = setup({ throwBatches: true });
    const results = Promise.all([text(1), text(2)].map((t) => batcher.encode(t)));
    expect(callbackEnds).not.toThrow();
    expect(await results).toEqual([await alone(text(1)), await alone(text(2))]);
    expect(tok.calls.map((c) => c.kind)).toEqual(['batch', 'single', 'single']);
    expect(batcher.pending).toEqual({ queued: 0, encoding: 0 });
  });

  for (const [what, o] of [
    ['the wrong number of encodings', { shortBatches: true }],
    ['encodings whose ids cannot be read', { unreadableBatches: true }],
  ] as const)
    it(`does not trust a batch that answers with ${what}`, async () => {
      const { batcher, tok, callbackEnds } = setup(o);
      const results = Promise.all([text(1), text(2)].map((t) => batcher.encode(t)));
      callbackEnds();
      expect(await results).toEqual([await alone(text(1)), await alone(text(2))]);
      expect(tok.calls.map((c) => c.kind)).toEqual(['batch', 'single', 'single']);
      expect(batcher.pending).toEqual({ queued: 0, encoding: 0 });
    });
});
