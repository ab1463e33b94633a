// PromptBuilder.buildEarly (issue 30): a short ASCII prompt's ids come at once from the fast encoder,
// with the native tokenizer's ids to confirm them; the fast encoder is used only for a tokenizer it
// follows and agrees with on the load probes, and the first disagreement on a prompt turns it off.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AsciiBpe } from '../../../electron/engine/miner/ascii-bpe.ts';
import { EncodeBatcher } from '../../../electron/engine/miner/encode-batcher.ts';
import { NativeTokenizerThread } from '../../../electron/engine/miner/native-tokenizer-thread.ts';
import { CONFIRM_QUIET_MS, EARLY_MAX_CHARS, GUESS_BUDGET_MS_PER_TURN, PromptBuilder } from '../../../electron/engine/miner/prompt-builder.ts';
import { QuietGather } from '../../../electron/engine/miner/quiet-gather.ts';
import { ManualClock } from '../../doubles/manual-clock.ts';

const CHECKPOINT = join(import.meta.dirname, '..', '..', 'fixtures', 'checkpoint-tiny');
const ask = (content: string) => ({ messages: [{ role: 'user', content }] });

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The tiny checkpoint's template with its tokenizer.json changed by `edit`. */
function checkpointWith(edit: (t: { added_tokens: { id: number }[]; [key: string]: unknown }) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'engy-early-'));
  dirs.push(dir);
  copyFileSync(join(CHECKPOINT, 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
  const t = JSON.parse(readFileSync(join(CHECKPOINT, 'tokenizer.json'), 'utf8'));
  edit(t);
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(t));
  return dir;
}

describe('prompts built early', () => {
  it('a short ASCII prompt gets the fast ids at once, confirmed by the tokenizer’s equal ids', async () => {
    const pb = await PromptBuilder.load(CHECKPOINT);
    expect(pb.fastEncoderOff).toBeNull();
    const early = await pb.buildEarly(ask('How does a river carve a valley?'));
    expect(early.confirmed).not.toBeNull();
    expect(await early.confirmed).toEqual(early.ids);
    expect(early.ids).toEqual((await pb.build(ask('How does a river carve a valley?'))).ids);
  });

  it('gathers guessed prompts’ confirmations until the burst has stopped arriving; a prompt without a guess goes to the tokenizer at once', async () => {
    const clock = new ManualClock();
    // Guessing costs no time on this clock: a cold first guess may not spend the turn's budget.
    const pb = await PromptBuilder.load(CHECKPOINT, { now: () => 0, confirmGather: new QuietGather(CONFIRM_QUIET_MS, 10, clock) });
    const batches = vi.spyOn(NativeTokenizerThread.prototype, 'encodeBatch');
    const early = await Promise.all([1, 2, 3].map((i) => pb.buildEarly(ask(`Question ${i}: how does a river carve a valley?`))));
    expect(early.map((e) => e.confirmed === null)).toEqual([false, false, false]);
    expect(pb.queue).toEqual({ queued: 3, encoding: 0 });
    // Not ASCII: no guess, so it is tokenized now, alone, while the three still wait.
    const lone = await pb.buildEarly(ask('Où est la rivière ?'));
    expect(lone.confirmed).toBeNull();
    expect(batches.mock.calls.map((c) => c[0].length)).toEqual([1]);
    await clock.advance(CONFIRM_QUIET_MS);
    expect(await Promise.all(early.map((e) => e.confirmed))).toEqual(early.map((e) => e.ids));
    expect(batches.mock.calls.map((c) => c[0].length)).toEqual([1, 3]);
    expect(pb.queue).toEqual({ queued: 0, encoding: 0 });
    pb.close();
  });

  it('a prompt with non-ASCII text, or one longer than EARLY_MAX_CHARS, waits for the tokenizer', async () => {
    const pb = await PromptBuilder.load(CHECKPOINT);
    const spy = vi.spyOn(AsciiBpe.prototype, 'encode');
    for (const content of ['Où est la rivière ?', 'a river '.repeat(EARLY_MAX_CHARS / 8)]) {
      const early = await pb.buildEarly(ask(content));
      expect(early.confirmed).toBeNull();
      expect(early.ids).toEqual((await pb.build(ask(content))).ids);
    }
    // No guess was made: the non-ASCII one was left to the tokenizer, the long one never tried.
    expect(spy.mock.results.map((r) => r.value)).toEqual([null]);
  });

  it('guesses for at most GUESS_BUDGET_MS_PER_TURN of the thread in a turn of the loop; the rest of that turn waits for the tokenizer', async () => {
    // A clock each guess moves by 1 ms, and turns the test ends by hand.
    let t = 0;
    const turns: (() => void)[] = [];
    const pb = await PromptBuilder.load(CHECKPOINT, { now: () => t, nextTurn: (fn) => void turns.push(fn) });
    const real = AsciiBpe.prototype.encode;
    vi.spyOn(AsciiBpe.prototype, 'encode').mockImplementation(function (this: AsciiBpe, text: string) {
      t += 1;
      return real.call(this, text);
    });
    const burst = () => Array.from({ length: GUESS_BUDGET_MS_PER_TURN + 2 }, (_, i) => pb.buildEarly(ask(`Question ${i}: why is the sky blue?`)));
    const guessed = Array.from({ length: GUESS_BUDGET_MS_PER_TURN + 2 }, (_, i) => i < GUESS_BUDGET_MS_PER_TURN);
    const first = await Promise.all(burst());
    expect(first.map((p) => p.confirmed !== null)).toEqual(guessed);
    // The ids are right either way.
    for (const p of first) expect((await p.confirmed) ?? p.ids).toEqual(p.ids);
    for (const end of turns.splice(0)) end();
    const next = await Promise.all(burst());
    expect(next.map((p) => p.confirmed !== null)).toEqual(guessed);
  });

  it('the first guess the tokenizer overrules turns the fast encoder off for good', async () => {
    const pb = await PromptBuilder.load(CHECKPOINT);
    const real = AsciiBpe.prototype.encode;
    vi.spyOn(AsciiBpe.prototype, 'encode').mockImplementation(function (this: AsciiBpe, text: string) {
      const ids = real.call(this, text);
      return ids && text.includes('MISGUESS') ? [...ids.slice(0, -1), ids.at(-1)! + 1] : ids;
    });
    const early = await pb.buildEarly(ask('MISGUESS me'));
    const native = (await early.confirmed)!;
    expect(native).not.toEqual(early.ids);
    expect(native).toEqual((await pb.build(ask('MISGUESS me'))).ids);
    expect(pb.fastEncoderOff).toBe('it disagreed with the tokenizer on a prompt');
    expect((await pb.buildEarly(ask('A plain question'))).confirmed).toBeNull();
  });

  it('a tokenizer failure reaches the caller through `confirmed`, and only there', async () => {
    const pb = await PromptBuilder.load(CHECKPOINT);
    const real = EncodeBatcher.prototype.encode;
    vi.spyOn(EncodeBatcher.prototype, 'encode').mockImplementation(function (this: EncodeBatcher, text: string) {
      return text.includes('BREAK') ? Promise.reject(new Error('tokenizer broke')) : real.call(this, text);
    });
    const early = await pb.buildEarly(ask('BREAK here'));
    expect(early.ids.length).toBeGreaterThan(0);
    await expect(early.confirmed).rejects.toThrow('tokenizer broke');
    // Not a disagreement: the fast encoder stays on.
    expect(pb.fastEncoderOff).toBeNull();
  });

  it('a tokenizer that adds a token of its own fails the load probes: every prompt waits for it', async () => {
    const pb = await PromptBuilder.load(
      checkpointWith((t) => {
        t.post_processor = {
          type: 'TemplateProcessing',
          single: [{ SpecialToken: { id: '<|endoftext|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
          pair: [{ Sequence: { id: 'A', type_id: 0 } }],
          special_tokens: { '<|endoftext|>': { id: '<|endoftext|>', ids: [t.added_tokens[0]!.id], tokens: ['<|endoftext|>'] } },
        };
      }),
    );
    expect(pb.fastEncoderOff).toBe('it disagreed with the tokenizer on probe 1');
    const early = await pb.buildEarly(ask('How does a river carve a valley?'));
    expect(early.confirmed).toBeNull();
  });

  it('a tokenizer it does not follow is named as the reason, and every prompt waits for it', async () => {
    const pb = await PromptBuilder.load(checkpointWith((t) => (t.normalizer = { type: 'Lowercase' })));
    expect(pb.fastEncoderOff).toBe('the tokenizer is not one it follows (normalizer Lowercase)');
    expect((await pb.buildEarly(ask('How does a river carve a valley?'))).confirmed).toBeNull();
  });
});
