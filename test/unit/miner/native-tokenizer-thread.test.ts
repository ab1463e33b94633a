// The native tokenizer on a thread of its own (issue 30: its synchronous load stalled the engine's
// thread as mining started). Its ids and text are the binding's own; a load that fails or hangs is an
// error that names the file; a thread killed under an ask fails that ask, and the next one starts a new
// thread; hostile texts and ids are answered or refused without taking the thread down.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Tokenizer } from 'tokenizers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NativeTokenizerThread } from '../../../electron/engine/miner/native-tokenizer-thread.ts';

const TOKENIZER = join(import.meta.dirname, '..', '..', 'fixtures', 'checkpoint-tiny', 'tokenizer.json');
const inProcess = Tokenizer.fromFile(TOKENIZER);

const open: NativeTokenizerThread[] = [];
const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const t of open.splice(0)) t.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function thread(path = TOKENIZER): Promise<NativeTokenizerThread> {
  const t = await NativeTokenizerThread.open(path);
  open.push(t);
  return t;
}

const ids = async (t: { encodeBatch(x: string[]): Promise<{ getIds(): number[] }[]> }, texts: string[]) => (await t.encodeBatch(texts)).map((e) => e.getIds());

describe('the native tokenizer on its own thread', () => {
  it('answers a batch, a single text and a decode exactly as the binding does in-process', async () => {
    const t = await thread();
    const texts = ['How does a river carve a valley?', '', 'Où est la rivière ? ✓ 🙂', '<|im_start|>user\nhi<|im_end|>', 'x'.repeat(20_000)];
    expect(await ids(t, texts)).toEqual(await ids(inProcess, texts));
    expect((await t.encode(texts[2]!)).getIds()).toEqual((await inProcess.encode(texts[2]!)).getIds());
    const some = (await inProcess.encode(texts[3]!)).getIds();
    for (const skip of [true, false]) expect(await t.decode(some, skip)).toBe(await inProcess.decode(some, skip));
  });

  it('a missing or unreadable tokenizer.json fails the open with a sentence naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engy-tokthread-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'not-json.json'), '{"model": [');
    writeFileSync(join(dir, 'wrong-shape.json'), '{"__proto__": {"model": 1}, "constructor": 2}');
    for (const bad of [join(dir, 'missing.json'), join(dir, 'not-json.json'), join(dir, 'wrong-shape.json'), dir]) {
      await expect(NativeTokenizerThread.open(bad)).rejects.toThrow(`the tokenizer could not be loaded (${bad})`);
    }
  });

  it('a load past its deadline fails with what to check, and stops its thread', async () => {
    let fire: () => void = () => undefined;
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const opening = NativeTokenizerThread.open(TOKENIZER, { timeoutMs: 60_000, setTimer: (f) => ((fire = f), () => undefined) });
    fire();
    await expect(opening).rejects.toThrow(`loading the tokenizer (${TOKENIZER}) took over 60 s; check the disk it is on`);
    expect(terminate).toHaveBeenCalledTimes(1);
  });

  it('a thread killed under an ask fails that ask with its cause; the next ask gets a new thread', async () => {
    const t = await thread();
    // The thread the ask goes to is stopped instead of given it: it dies with the ask unanswered, as a
    // crash would (posting it first would race the thread's answer against its death).
    let killed: Promise<number> | null = null;
    vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: Worker) {
      killed ??= this.terminate();
    });
    const pending = t.encodeBatch(['What is a river?']);
    await expect(pending).rejects.toThrow("the tokenizer's thread stopped before it answered (its thread exited with code 1)");
    await killed;
    vi.restoreAllMocks();
    expect(await ids(t, ['What is a river?'])).toEqual(await ids(inProcess, ['What is a river?']));
  });

  it('a decode whose thread is killed under it is asked once more of a new thread, and answers', async () => {
    const t = await thread();
    const some = (await inProcess.encode('How does a river carve a valley?')).getIds();
    const post = Worker.prototype.postMessage;
    let decodes = 0;
    // The first decode's thread is stopped instead of given it (the ask dies unanswered); the second is posted.
    vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: Worker, ...a: Parameters<Worker['postMessage']>) {
      if ((a[0] as { op?: string }).op === 'decode' && decodes++ === 0) void this.terminate();
      else post.apply(this, a);
    });
    expect(await t.decode(some, true)).toBe(await inProcess.decode(some, true));
    expect(decodes).toBe(2);
  });

  it('hostile texts and ids are answered or refused, and the thread keeps answering', async () => {
    const t = await thread();
    const hostile = ['__proto__', 'constructor', 'prototype', '\u0000\u0001\u007f', '\ud800 lone surrogate \udfff', '\u202e\ufeff', 'a'.repeat(100_000)];
    const got = await ids(t, hostile);
    expect(got.map((x) => x.length > 0)).toEqual(hostile.map(() => true));
    expect(got.slice(0, 6)).toEqual((await ids(inProcess, hostile.slice(0, 6))).slice(0, 6));
    // Ids the vocabulary does not have, or that are not u32: a decode answers or is refused, never hangs.
    for (const bad of [[999_999_999], [-1], [1.5], [Number.NaN]]) {
      await t.decode(bad, true).then(
        (text) => expect(typeof text).toBe('string'),
        (e: Error) => expect(e.message).toMatch(/^the tokenizer refused it: /),
      );
    }
    expect(await ids(t, ['still here'])).toEqual(await ids(inProcess, ['still here']));
  });

  it('close fails what still waits and every later ask, with a sentence saying why', async () => {
    const t = await NativeTokenizerThread.open(TOKENIZER);
    // One ask posted to the thread, one still on its way to it (the ask awaits the loaded thread first).
    const post = Worker.prototype.postMessage;
    let posted!: () => void;
    const wasPosted = new Promise<void>((r) => (posted = r));
    vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: Worker, ...a: Parameters<Worker['postMessage']>) {
      post.apply(this, a);
      posted();
    });
    const waiting = t.encodeBatch(['a river '.repeat(2_000)]);
    await wasPosted;
    const onItsWay = t.encodeBatch(['a lake']);
    t.close();
    await expect(waiting).rejects.toThrow("the tokenizer's thread stopped before it answered (the miner stopped)");
    await expect(onItsWay).rejects.toThrow('the tokenizer is closed (the miner stopped)');
    await expect(t.encode('later')).rejects.toThrow('the tokenizer is closed (the miner stopped)');
  });
});
