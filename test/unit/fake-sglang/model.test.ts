import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { Template } from '@huggingface/jinja';
import { computeHiddenStates, FakeModel, greedyGenerate } from '../../doubles/fake-sglang/model.ts';
import { loadCheckpointSpec } from '../../doubles/fake-sglang/vocab-plan.ts';
import { Detokenizer } from '../../doubles/fake-sglang/detokenizer.ts';
import { toBf16 } from '../../doubles/fake-sglang/numerics.ts';
import { CHECKPOINT_TINY } from '../../doubles/fake-sglang/spawn.ts';

const spec = loadCheckpointSpec(CHECKPOINT_TINY);
const opts = { hiddenSize: spec.hiddenSize, vocab: spec.vocab };
const tokenizer = Tokenizer.fromFile(join(CHECKPOINT_TINY, 'tokenizer.json'));
const template = new Template((JSON.parse(readFileSync(join(CHECKPOINT_TINY, 'tokenizer_config.json'), 'utf8')) as { chat_template: string }).chat_template);

async function chatPrompt(question: string, enableThinking = true): Promise<number[]> {
  const text = template.render({ messages: [{ role: 'user', content: question }], add_generation_prompt: true, enable_thinking: enableThinking });
  return (await tokenizer.encode(text)).getIds();
}

describe('fake sglang model', () => {
  it('has the checkpoint hidden size and the tokenizer vocabulary', () => {
    expect(spec.hiddenSize).toBe(2048);
    expect(spec.vocab.words.length).toBeGreaterThan(50);
    expect(spec.vocab.imEnd).toBeGreaterThan(spec.vocab.imStart);
  });

  it('is deterministic across independent model instances', async () => {
    const ids = await chatPrompt('What is the capital of France?');
    const a = new FakeModel(opts);
    const b = new FakeModel(opts);
    const sa = a.initialState();
    const sb = b.initialState();
    for (const t of ids) {
      a.advance(sa, t);
      b.advance(sb, t);
    }
    expect(Array.from(a.hiddenRow(sa))).toEqual(Array.from(b.hiddenRow(sb)));
    expect(greedyGenerate(ids, 40, opts)).toEqual(greedyGenerate(ids, 40, opts));
  });

  it('a different seed gives different activations', async () => {
    const ids = await chatPrompt('Hello');
    const x = computeHiddenStates(ids, opts).at(-1)!;
    const y = computeHiddenStates(ids, { ...opts, seed: 7 }).at(-1)!;
    expect(Array.from(x)).not.toEqual(Array.from(y));
  });

  it('emits bf16-exact, finite rows of the hidden size', async () => {
    const rows = computeHiddenStates(await chatPrompt('Tell me about rivers.'), opts);
    expect(rows.every((row) => row.length === 2048)).toBe(true);
    const bad = rows.flatMap((row) => Array.from(row).filter((v) => !Number.isFinite(v) || toBf16(v) !== v));
    expect(bad).toEqual([]);
  });

  it('prefill rows equal decode rows at the same positions (causal)', async () => {
    const prompt = await chatPrompt('Explain the plan step by step.');
    const gen = greedyGenerate(prompt, 30, opts, { ignoreEos: true });
    const all = computeHiddenStates([...prompt, ...gen.outputIds], opts);
    // rows[k] sampled output token k: it is the state after prompt + outputs[0..k-1].
    gen.rows.forEach((row, k) => expect(Array.from(row)).toEqual(Array.from(all[prompt.length - 1 + k]!)));
    // computeHiddenStates from a later position gives the tail of the same rows.
    const tail = computeHiddenStates(prompt, opts, prompt.length - 3);
    expect(tail.map((r) => Array.from(r))).toEqual(all.slice(prompt.length - 3, prompt.length).map((r) => Array.from(r)));
  });

  it('chunked continuation (prompt + outputs minus last, regenerate the overlap) equals one long call', async () => {
    const prompt = await chatPrompt('Write a short note about the morning.');
    const long = greedyGenerate(prompt, 60, opts, { ignoreEos: true });
    const first = greedyGenerate(prompt, 25, opts, { ignoreEos: true });
    const cont = greedyGenerate([...prompt, ...first.outputIds.slice(0, -1)], 36, opts, { ignoreEos: true });
    expect(cont.outputIds[0]).toBe(first.outputIds.at(-1));
    const ids = [...first.outputIds, ...cont.outputIds.slice(1)];
    const rows = [...first.rows, ...cont.rows.slice(1)];
    expect(ids).toEqual(long.outputIds);
    expect(rows.map((r) => Array.from(r))).toEqual(long.rows.map((r) => Array.from(r)));
  });

  it('answers a chat prompt with readable text, closes <think>, and stops on <|im_end|>', async () => {
    const prompt = await chatPrompt('What is the weather today?');
    const gen = greedyGenerate(prompt, 1000, opts);
    expect(gen.finish).toBe('stop');
    expect(gen.outputIds.at(-1)).toBe(spec.vocab.imEnd);
    const text = await tokenizer.decode(gen.outputIds, false);
    expect(text).toContain('</think>');
    expect(text.endsWith('<|im_end|>')).toBe(true);
    expect(text).toMatch(/[a-z]{3,} [a-z]{2,}/);
    expect(gen.logprobs.every((l) => l <= 0 && Number.isFinite(l))).toBe(true);
  });

  it('without thinking, answers without a think block', async () => {
    const gen = greedyGenerate(await chatPrompt('Say hello.', false), 1000, opts);
    expect(gen.finish).toBe('stop');
    expect(gen.outputIds).not.toContain(spec.vocab.thinkOpen);
    expect(gen.outputIds).not.toContain(spec.vocab.thinkClose);
  });

  it('runs out of max_new_tokens with finish length when EOS is ignored', async () => {
    const gen = greedyGenerate(await chatPrompt('Hi'), 50, opts, { ignoreEos: true });
    expect(gen.finish).toBe('length');
    expect(gen.outputIds).toHaveLength(50);
    expect(gen.outputIds).not.toContain(spec.vocab.imEnd);
  });

  it('the serve detokenizer agrees with HF tokenizers (skip_special_tokens)', async () => {
    const gen = greedyGenerate(await chatPrompt('Tell me something.'), 200, opts);
    const detok = new Detokenizer(CHECKPOINT_TINY);
    expect(detok.decode(gen.outputIds)).toBe(await tokenizer.decode(gen.outputIds, true));
    expect(detok.decode(gen.outputIds, false)).toBe(await tokenizer.decode(gen.outputIds, false));
  });
});
