// output_token_logprobs token ids: read from their digits without a parse, in a buffer reused per
// stream event; every other spelling still goes through JSON and the same checks.
import { describe, expect, it } from 'vitest';
import { GenerateBodyError, GenerateBodyParser } from '../../../electron/engine/proof/index.ts';

const enc = new TextEncoder();
const body = (ids: string): string => `{"text":"x","meta_info":{"output_token_logprobs":[${ids}],"hidden_states":[[1.5,2]]}}`;

function idsOf(text: string, chunk = 3): number[] {
  const p = new GenerateBodyParser();
  const bytes = enc.encode(text);
  for (let i = 0; i < bytes.length; i += chunk) p.push(bytes.subarray(i, i + chunk));
  return p.end().outputTokenIds;
}

describe('token ids in output_token_logprobs', () => {
  it('reads plain, long, and JSON-only spellings exactly', () => {
    expect(idsOf(body('[0,0,null],[-0.5,151643,"a"],[0,999999999999999,null],[0,1.0,null],[0,2e2,null],[0,1234567890123456,null]'))).toEqual([0, 151643, 999999999999999, 1, 200, 1234567890123456]);
  });

  it('refuses what is not a non-negative integer, whichever path reads it', () => {
    for (const bad of ['[0,-1,null]', '[0,1.5,null]', '[0,"7",null]', '[0,007,null]', '[0,null,null]', '[0,{"__proto__":1},null]', '[0,[1],null]']) {
      expect(() => idsOf(body(bad)), bad).toThrow(GenerateBodyError);
    }
  });

  it("keeps the last stream event's list only, as long or as short as it is", () => {
    const ev = (ids: number[], hidden: boolean) =>
      `data: {"text":"x","meta_info":{"output_token_logprobs":[${ids.map((i) => `[0,${i},null]`).join(',')}],"hidden_states":${hidden ? '[[1,2]]' : '[]'}}}\n\n`;
    const many = Array.from({ length: 600 }, (_, i) => i * 3);
    expect(idsOf(ev(many, false) + ev([5, 6], true) + 'data: [DONE]\n\n', 77)).toEqual([5, 6]);
    expect(idsOf(ev([5, 6], false) + ev(many, true) + 'data: [DONE]\n\n', 77)).toEqual(many);
    expect(idsOf(ev(many, false) + 'data: {"text":"x","meta_info":{"hidden_states":[[1,2]]}}\n\ndata: [DONE]\n\n')).toEqual([]);
  });
});

describe('final text only (no one reads text deltas)', () => {
  it("gives the final event's text, decoded once, and fails a final text that is not a string", () => {
    const ev = (text: string) => `data: {"text":${text},"meta_info":{"output_token_logprobs":[[0,1,null]],"hidden_states":[[1,2]]}}\n\n`;
    const run = (sse: string) => {
      const p = new GenerateBodyParser({ finalTextOnly: true });
      const bytes = enc.encode(sse);
      for (let i = 0; i < bytes.length; i += 5) p.push(bytes.subarray(i, i + 5));
      return p.end().text;
    };
    expect(run(ev('"Hel"') + ev('"Hello, \\"wörld\\" 😀"') + 'data: [DONE]\n\n')).toBe('Hello, "wörld" 😀');
    expect(run(ev('"a"') + 'data: {"meta_info":{"hidden_states":[[1,2]]}}\n\ndata: [DONE]\n\n')).toBe('');
    expect(() => run(ev('"a"') + ev('7') + 'data: [DONE]\n\n')).toThrow(GenerateBodyError);
    expect(() => run(ev('{"__proto__":"x"}') + 'data: [DONE]\n\n')).toThrow(GenerateBodyError);
  });
});
