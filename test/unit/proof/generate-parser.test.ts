import { describe, expect, it } from 'vitest';
import { GenerateBodyError, GenerateBodyParser, type GenerateBody } from '../../../electron/engine/proof/index.ts';
import { buildBody, buildSse, type BodySpec } from '../../helpers/generate-bodies.ts';
import { loadToplocVectors } from '../../helpers/toploc-fixtures.ts';

const enc = new TextEncoder();

function parseChunks(chunks: Uint8Array[], onDelta?: (d: string) => void): GenerateBody {
  const p = new GenerateBodyParser(onDelta ? { onTextDelta: onDelta } : {});
  for (const c of chunks) p.push(c);
  return p.end();
}

function parseText(text: string): GenerateBody {
  return parseChunks([enc.encode(text)]);
}

/** Everything but the rows buffer, for comparing two parses. */
function summary(b: GenerateBody): unknown {
  return { ...b, rows: { n: b.rows.rowCount, h: b.rows.hiddenSize, data: Array.from(b.rows.data) } };
}

const base: BodySpec = { hidden: 6, prefillRows: 3, decodeRows: 4, prefillShape: 'full', seed: 11 };

describe('GenerateBodyParser on plain bodies', () => {
  it('keeps the last prefill row and every decode row, whatever shape the prefill block has', () => {
    const results = (['full', 'trimmed', 'flat'] as const).map((prefillShape) => {
      const b = buildBody({ ...base, prefillShape });
      const r = parseText(b.json);
      expect(r.rows.rowCount).toBe(b.expectedRowCount);
      expect(r.rows.hiddenSize).toBe(6);
      expect(Array.from(r.rows.data)).toEqual(Array.from(b.expectedRows));
      expect(r.outputTokenIds).toEqual(b.tokenIds);
      expect(r.rowOffset).toBe(0);
      return r;
    });
    expect(summary(results[1]!)).toEqual(summary(results[0]!));
    expect(summary(results[2]!)).toEqual(summary(results[0]!));
  });

  it('reads the meta fields and the text with its escapes', () => {
    const r = parseText(buildBody({ ...base, finish: { type: 'stop', matched: 151645 } }).json);
    expect(r.finishReason).toEqual({ type: 'stop', matched: 151645 });
    expect(r.text).toBe('Hello, "world" \\ ünïcødé 😀 done');
    expect([r.promptTokens, r.completionTokens, r.cachedTokens]).toEqual([3, 5, 3]);
    expect([r.format, r.events, r.hiddenStatesPresent, r.serveError]).toEqual(['json', 1, true, null]);
  });

  it('counts the output token without a row when the prefill block is empty', () => {
    const b = buildBody({ ...base, prefillRows: 0 });
    const r = parseText(b.json);
    expect(r.rowOffset).toBe(1);
    expect(r.rows.rowCount).toBe(4);
    expect(Array.from(r.rows.data)).toEqual(Array.from(b.expectedRows));
  });

  it('treats an empty 2-D block like an empty one, and ignores empty elements after the first row', () => {
    const r = parseText('{"meta_info":{"hidden_states":[[[]],[1.5,2],[],[3,4]],"output_token_logprobs":[]}}');
    expect([r.rowOffset, r.rows.rowCount, r.rows.hiddenSize]).toEqual([1, 2, 2]);
    expect(Array.from(r.rows.data)).toEqual([0x3fc0, 0x4000, 0x4040, 0x4080]);
  });

  it('reports a body without hidden states', () => {
    const r = parseText('{"text":"hi","meta_info":{"finish_reason":{"type":"length","length":1},"output_token_logprobs":[[0,5,null]]}}');
    expect([r.hiddenStatesPresent, r.rows.rowCount, r.outputTokenIds]).toEqual([false, 0, [5]]);
  });

  it('takes element 0 of a batch array', () => {
    const b = buildBody(base);
    const r = parseText(`[${b.json}, {"text": "other", "meta_info": {"hidden_states": [[9]]}}]`);
    expect(r.text).toBe('Hello, "world" \\ ünïcødé 😀 done');
    expect(Array.from(r.rows.data)).toEqual(Array.from(b.expectedRows));
  });

  it('converts JSON number text through float64 and float32 to bf16 like the reference, literals included', () => {
    const v = loadToplocVectors<{ json_text: { text: string; bf16: string }[] }>('bf16_conversion');
    const texts = [...v.json_text.map((c) => c.text), 'NaN', 'null', '-Infinity', '-0.0', '-0e0', '0.0'];
    const want = [...v.json_text.map((c) => Number(c.bf16)), 0xffff, 0xffff, 0xff80, 0x8000, 0x8000, 0];
    const body = `{"meta_info":{"hidden_states":[[${texts.join(',')}], [ ${texts.join(' , ')} ]]}}`;
    const r = parseText(body);
    expect(r.rows.rowCount).toBe(2);
    expect(Array.from(r.rows.data.subarray(0, texts.length))).toEqual(want);
    expect(Array.from(r.rows.data.subarray(texts.length))).toEqual(want);
  });

  it('gives the same answer however the body is split into chunks', () => {
    const b = buildBody({ ...base, hidden: 3, decodeRows: 3 });
    const bytes = enc.encode(b.json);
    const whole = summary(parseChunks([bytes]));
    for (let i = 0; i <= bytes.length; i++) {
      expect(summary(parseChunks([bytes.subarray(0, i), bytes.subarray(i)])), `split at ${i}`).toEqual(whole);
    }
    const ones = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    expect(summary(parseChunks(ones))).toEqual(whole);
  });
});

describe('GenerateBodyParser on SSE streams', () => {
  it('reports text deltas as events arrive and answers from the final event only', () => {
    for (const trimmed of [true, false]) {
      const s = buildSse(base, 5, trimmed);
      const deltas: string[] = [];
      const r = parseChunks([enc.encode(s.sse)], (d) => deltas.push(d));
      expect(deltas.join('')).toBe(s.texts[s.texts.length - 1]);
      expect(deltas.length).toBe(5);
      expect([r.format, r.events, r.sawDone]).toEqual(['sse', 5, true]);
      expect(Array.from(r.rows.data)).toEqual(Array.from(s.final.expectedRows));
      expect(r.outputTokenIds).toEqual(s.final.tokenIds);
      expect(r.finishReason).toEqual({ type: 'length', length: 5 });
    }
  });

  it('gives the same answer and the same text however the stream is split', () => {
    const s = buildSse({ ...base, hidden: 2, decodeRows: 2, prefillRows: 2 }, 3, false);
    const bytes = enc.encode(s.sse);
    const whole = summary(parseChunks([bytes]));
    for (let i = 0; i <= bytes.length; i++) {
      let text = '';
      const got = parseChunks([bytes.subarray(0, i), bytes.subarray(i)], (d) => (text += d));
      expect(summary(got), `split at ${i}`).toEqual(whole);
      expect(text).toBe(s.texts[s.texts.length - 1]);
    }
  });

  it('offers the deltas through a pull API too', () => {
    const s = buildSse(base, 3, true);
    const p = new GenerateBodyParser();
    const bytes = enc.encode(s.sse);
    const cut = s.sse.indexOf('\n\n') + 2;
    p.push(bytes.subarray(0, cut));
    expect(p.takeTextDelta()).toBe(s.texts[0]);
    expect(p.takeTextDelta()).toBe('');
    p.push(bytes.subarray(cut));
    expect(s.texts[0]! + p.takeTextDelta()).toBe(s.texts[2]);
    p.end();
  });

  it('surfaces an error event and accepts a stream without [DONE]', () => {
    const r = parseText('data: {"text":"a","meta_info":{"finish_reason":null}}\n\ndata: {"error": {"message": "boom"}}\n\n');
    expect([r.serveError, r.sawDone, r.events]).toEqual(['boom', false, 2]);
  });

  it('ignores comments and other fields, and handles CRLF', () => {
    const b = buildBody(base);
    const r = parseText(`: keepalive\r\nevent: message\r\ndata: ${b.json}\r\n\r\ndata: [DONE]\r\n\r\n`);
    expect(Array.from(r.rows.data)).toEqual(Array.from(b.expectedRows));
    expect(r.sawDone).toBe(true);
  });
});

describe('GenerateBodyParser on malformed input', () => {
  const cases: [string, string, RegExp][] = [
    ['truncated body', '{"meta_info":{"hidden_states":[[1,2],[3', /ended before its JSON was complete/],
    ['bad number', '{"meta_info":{"hidden_states":[[1,2.],[3,4]]}}', /not a number/],
    ['letters in a row', '{"meta_info":{"hidden_states":[[1,abc]]}}', /not a number/],
    ['ragged rows', '{"meta_info":{"hidden_states":[[1,2],[3]]}}', /differ in size/],
    ['trailing data', '{"text":"x"} {"text":"y"}', /unexpected data after/],
    ['too deep', '{"meta_info":{"hidden_states":[[[[1]]]]}}', /nested deeper/],
    ['missing token id', '{"meta_info":{"output_token_logprobs":[[0.5]]}}', /no token id/],
    ['batch of non-objects', '[1, 2]', /batch array does not hold an object/],
    ['empty body', '  ', /empty/],
    ['event cut short', 'data: {"text": "a"\n\n', /event ended before/],
    ['no events', ': only a comment\n', /no events/],
    ['missing comma', '{"meta_info":{"hidden_states":[[1 2]]}}', /expected ',' or ']'/],
  ];
  for (const [name, body, message] of cases) {
    it(`rejects ${name} with a clear error`, () => {
      let caught: unknown;
      try {
        parseText(body);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(GenerateBodyError);
      expect((caught as Error).message).toMatch(message);
      expect((caught as Error).message).toMatch(/^malformed \/generate body: /);
    });
  }

  it('stays failed after an error', () => {
    const p = new GenerateBodyParser();
    expect(() => p.push(enc.encode('{"meta_info":{"hidden_states":[[1,x]'))).toThrow(GenerateBodyError);
    expect(() => p.push(enc.encode(']]}}'))).toThrow(GenerateBodyError);
    expect(() => p.end()).toThrow(GenerateBodyError);
  });
});
