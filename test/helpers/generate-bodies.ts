// Builds sglang-shaped /generate response bodies (plain JSON and SSE) for the parser tests.
import { float64ToBf16 } from '../../electron/engine/proof/index.ts';
import { xorshiftRandom as rng } from './xorshift.ts';

export interface BodySpec {
  hidden: number;
  /** Rows of the prefill block (only the last is kept by the parser); 0 = empty block `[]`. */
  prefillRows: number;
  decodeRows: number;
  /** full: the whole prefill block; trimmed: `[[last]]`; flat: `[last]`. */
  prefillShape: 'full' | 'trimmed' | 'flat';
  seed: number;
  text?: string;
  finish?: unknown;
}

export interface BuiltBody {
  json: string;
  /** The bf16 rows the parser must produce. */
  expectedRows: Uint16Array;
  expectedRowCount: number;
  expectedOffset: number;
  tokenIds: number[];
  hiddenStates: number[][][] | unknown[];
}

/** Values like a model's hidden state, rounded to float32 as sglang reports them. */
export function randomRow(r: () => number, h: number): number[] {
  const row: number[] = [];
  for (let i = 0; i < h; i++) row.push(Math.fround((r() - 0.5) * (i % 7 === 0 ? 40 : 3) * (r() < 0.01 ? 1e-7 : 1)));
  return row;
}

export function buildBody(spec: BodySpec): BuiltBody {
  const r = rng(spec.seed);
  const prefill: number[][] = [];
  for (let i = 0; i < spec.prefillRows; i++) prefill.push(randomRow(r, spec.hidden));
  const decode: number[][] = [];
  for (let i = 0; i < spec.decodeRows; i++) decode.push(randomRow(r, spec.hidden));
  const last = prefill[prefill.length - 1];
  let element0: unknown;
  if (!last) element0 = [];
  else if (spec.prefillShape === 'full') element0 = prefill;
  else if (spec.prefillShape === 'trimmed') element0 = [last];
  else element0 = last;
  const kept = last ? [last, ...decode] : decode;
  const expectedRows = new Uint16Array(kept.length * spec.hidden);
  kept.forEach((row, i) => row.forEach((v, j) => (expectedRows[i * spec.hidden + j] = float64ToBf16(v))));
  const nOut = decode.length + 1;
  const tokenIds = Array.from({ length: nOut }, (_, i) => 1000 + i * 7);
  const hiddenStates = [element0, ...decode];
  const body = {
    text: spec.text ?? 'Hello, "world" \\ ünïcødé 😀 done',
    output_ids: tokenIds,
    meta_info: {
      id: 'abc',
      finish_reason: spec.finish === undefined ? { type: 'length', length: nOut } : spec.finish,
      prompt_tokens: Math.max(spec.prefillRows, 1),
      weight_version: 'default',
      output_token_logprobs: tokenIds.map((t, i) => [-0.25 * i, t, i % 2 ? null : `tok${i}`]),
      hidden_states: hiddenStates,
      completion_tokens: nOut,
      cached_tokens: 3,
      e2e_latency: 0.27,
    },
  };
  return {
    json: JSON.stringify(body),
    expectedRows,
    expectedRowCount: kept.length,
    expectedOffset: last ? 0 : 1,
    tokenIds,
    hiddenStates,
  };
}

/** An SSE stream: intermediate events with growing text (and, untrimmed, growing hidden states), then the final one. */
export function buildSse(spec: BodySpec, events: number, trimmedIntermediate: boolean): { sse: string; final: BuiltBody; texts: string[] } {
  const final = buildBody(spec);
  const fullText = spec.text ?? 'Hello, "world" \\ ünïcødé 😀 done';
  const parsed = JSON.parse(final.json) as { text: string; meta_info: Record<string, unknown> };
  const lines: string[] = [];
  const texts: string[] = [];
  for (let e = 1; e < events; e++) {
    const t = [...fullText].slice(0, Math.floor((e * [...fullText].length) / events)).join('');
    texts.push(t);
    const meta = {
      ...parsed.meta_info,
      finish_reason: null,
      hidden_states: trimmedIntermediate ? [] : (final.hiddenStates as unknown[]).slice(0, e),
      output_token_logprobs: (parsed.meta_info['output_token_logprobs'] as unknown[]).slice(0, e),
    };
    lines.push(`data: ${JSON.stringify({ text: t, meta_info: meta })}\n\n`);
  }
  texts.push(fullText);
  lines.push(`data: ${final.json}\n\n`, 'data: [DONE]\n\n');
  return { sse: lines.join(''), final, texts };
}
