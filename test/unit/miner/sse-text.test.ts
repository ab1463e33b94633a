import { describe, expect, it } from 'vitest';
import { SseTextScanner, type SseTextEvent } from '../../../electron/engine/miner/sse-text.ts';

type Got = { text: string | null; tokens: number | null; error: string | null; done: boolean };

function scan(body: Buffer, sizes: (i: number) => number, limit?: number): Got[] {
  const got: Got[] = [];
  const s = new SseTextScanner((e: SseTextEvent) => got.push({ ...e }), limit);
  for (let i = 0, k = 0; i < body.length; k++) {
    const n = Math.max(1, sizes(k));
    s.push(body.subarray(i, i + n));
    i += n;
  }
  s.end();
  return got;
}

/** What each line means, read the slow way: the whole line through JSON.parse. */
function reference(body: string): Got[] {
  const out: Got[] = [];
  for (const line of body.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') out.push({ text: null, tokens: null, error: null, done: true });
    else {
      const v = JSON.parse(data) as { text: string; output_ids: number[] };
      out.push({ text: v.text, tokens: v.output_ids.length, error: null, done: false });
    }
  }
  return out;
}

/** A sglang-shaped stream: cumulative text and ids, then a meta_info with hidden states. */
function stream(texts: string[], hidden = 8, spaced = false): string {
  const sep = spaced ? ', ' : ',';
  const col = spaced ? ': ' : ':';
  let s = '';
  texts.forEach((t, i) => {
    const ids = Array.from({ length: i + 1 }, (_, k) => 100 + k * 7);
    const rows = Array.from({ length: i + 1 }, () => `[${Array.from({ length: hidden }, (_, k) => (k * 0.125 - 0.5).toFixed(4)).join(',')}]`);
    s += `data: {"text"${col}${JSON.stringify(t)}${sep}"output_ids"${col}[${ids.join(sep)}]${sep}"meta_info"${col}{"hidden_states":[${rows.join(',')}]}}\n\n`;
  });
  return `${s}data: [DONE]\n\n`;
}

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('SseTextScanner reads each byte once', () => {
  const texts = ['H', 'He', 'Hé', 'Hé "q"', 'Hé "q"\n\\', 'Hé "q"\n\\😀', 'Hé "q"\n\\😀 ok', 'Hé "q"\n\\😀 ok\u2028'];

  it('reads cumulative text and token counts from a stream split at every size, UTF-8 and `data:` split across chunks', () => {
    for (const spaced of [false, true]) {
      const body = stream(texts, 16, spaced);
      const want = reference(body);
      for (let size = 1; size <= 40; size++) expect(scan(Buffer.from(body), () => size)).toEqual(want);
      const r = rng(7);
      for (let t = 0; t < 50; t++) expect(scan(Buffer.from(body), () => Math.floor(r() * 300))).toEqual(want);
    }
  });

  it('matches JSON.parse on random texts (escapes, astral characters, lone surrogates, rewritten tails)', () => {
    const r = rng(99);
    const alphabet = ['a', ' ', 'é', '😀', '"', '\\', '\n', '\t', '\u0001', '\uFFFD', '\ud83d', '中', '/'];
    for (let round = 0; round < 40; round++) {
      const evs: string[] = [];
      let t = '';
      for (let i = 0; i < 12; i++) {
        // Mostly growth; sometimes the serve's detokenizer rewrites the tail (a U+FFFD becomes a character).
        if (r() < 0.2 && t.length > 0) t = t.slice(0, -1);
        const n = 1 + Math.floor(r() * 3);
        for (let k = 0; k < n; k++) t += alphabet[Math.floor(r() * alphabet.length)]!;
        evs.push(t);
      }
      const body = stream(evs, 4);
      expect(scan(Buffer.from(body), () => 1 + Math.floor(r() * 64))).toEqual(reference(body));
    }
  });

  it('skips the hidden states of a huge event without holding them', () => {
    const row = `[${Array.from({ length: 2048 }, (_, k) => (k / 4096).toFixed(6)).join(',')}]`;
    const line = `data: {"text":"big","output_ids":[1,2],"meta_info":{"hidden_states":[${Array.from({ length: 400 }, () => row).join(',')}]}}\n\n`;
    const body = Buffer.from(line + 'data: [DONE]\n\n');
    expect(body.length).toBeGreaterThan(3_000_000);
    const got: Got[] = [];
    const s = new SseTextScanner((e) => got.push({ ...e }));
    for (let i = 0; i < body.length; i += 65536) s.push(body.subarray(i, i + 65536));
    s.end();
    expect(got).toEqual([
      { text: 'big', tokens: 2, error: null, done: false },
      { text: null, tokens: null, error: null, done: true },
    ]);
    // The big line's head was read in place in its first chunk and none of it was copied: only the
    // short `[DONE]` line was ever kept (the smallest head allocation).
    expect((s as unknown as { head: Buffer }).head.length).toBeLessThanOrEqual(256);
  });

  it('bounds what it keeps of a huge line of another shape, and still reads its text', () => {
    const line = `data: {"text":"x","meta_info":{"hidden_states":[${'0.5,'.repeat(500_000)}1]}}\n`;
    const got: Got[] = [];
    const s = new SseTextScanner((e) => got.push({ ...e }), 4096);
    const body = Buffer.from(line);
    for (let i = 0; i < body.length; i += 1000) s.push(body.subarray(i, i + 1000));
    expect(got).toEqual([{ text: 'x', tokens: null, error: null, done: false }]);
    expect((s as unknown as { head: Buffer }).head.length).toBeLessThanOrEqual(4096);
  });

  it('survives garbage, wrong types, __proto__ keys and truncated heads without throwing', () => {
    const lines = [
      'data: {"text": 5, "output_ids": [1]}',
      'data: {"__proto__": {"text": "polluted"}, "output_ids": [1]}',
      'data: {"text":"a","output_ids":[1,"x",3]}',
      'data: {"text":"a","output_ids":[1,2',
      'data: {"text":"unterminated',
      'data: {"text":"bad \\q escape","output_ids":[1]}',
      'data: {garbage',
      'data:',
      'event: ping',
      ': comment',
      '\u0000\u00ff\u0001binary',
      'data: {"error": "plain"}',
      'data: {"error": {"code": 3}}',
    ];
    const r = rng(5);
    const bytes = Buffer.concat([Buffer.from(lines.join('\n') + '\n'), Buffer.from(Array.from({ length: 5000 }, () => Math.floor(r() * 256)))]);
    const got = scan(bytes, () => 1 + Math.floor(r() * 17));
    expect(got.slice(0, 9)).toEqual([
      { text: null, tokens: 1, error: null, done: false },
      { text: null, tokens: 1, error: null, done: false },
      { text: 'a', tokens: 3, error: null, done: false },
      { text: 'a', tokens: null, error: null, done: false },
      { text: null, tokens: null, error: null, done: false },
      { text: null, tokens: 1, error: null, done: false },
      { text: null, tokens: null, error: null, done: false },
      { text: null, tokens: null, error: null, done: false },
      { text: null, tokens: null, error: 'plain', done: false },
    ]);
    expect(got[9]).toEqual({ text: null, tokens: null, error: '{"code":3}', done: false });
    expect(Object.prototype).not.toHaveProperty('text');
  });

  it('reads CRLF lines and an event with no newline before the end', () => {
    const got = scan(Buffer.from('data: {"text":"a","output_ids":[1]}\r\n\r\ndata: [DONE]\r\ndata: {"text":"ab","output_ids":[1,2]'), () => 3);
    expect(got).toEqual([
      { text: 'a', tokens: 1, error: null, done: false },
      { text: null, tokens: null, error: null, done: true },
      { text: 'ab', tokens: 2, error: null, done: false },
    ]);
  });
});
