import { describe, expect, it } from 'vitest';
import {
  buildProofs,
  float32ArrayToBf16,
  GenerateBodyError,
  GenerateBodyParser,
  generateXorshiftRows,
  isXorshiftRowsSpec,
  keptRowCount,
  MINER_PROOF_PARAMS,
  StreamingProver,
  type ProofParams,
} from '../../../electron/engine/proof/index.ts';
import { buildBody, buildSse, type BodySpec } from '../../helpers/generate-bodies.ts';
import { base64ToFloat32, loadToplocVectors, type BuildCase } from '../../helpers/toploc-fixtures.ts';
import { xorshiftRandom } from '../../helpers/xorshift.ts';

const enc = new TextEncoder();

/** Feeds rows to a prover batch by batch through ONE reused buffer, as the parser's sink does. */
function streamed(rows: Uint16Array, n: number, h: number, params: ProofParams, keep = n): string[] {
  const p = new StreamingProver(params);
  const b = params.decodeBatchingSize;
  const buf = new Uint16Array(b * h);
  let filled = 0;
  for (let r = 0; r < n; r++) {
    buf.set(rows.subarray(r * h, (r + 1) * h), filled * h);
    if (++filled === b) {
      p.batch(buf, 0, b * h);
      buf.fill(0xdead); // the memory is reused: nothing may be read from it afterwards
      filled = 0;
    }
  }
  return p.finish(keep, n, buf, h);
}

function parseProven(text: string, chunk: number, params: ProofParams = MINER_PROOF_PARAMS) {
  const p = new GenerateBodyParser({ proveAsParsed: params, expectRows: 4096 });
  const bytes = enc.encode(text);
  for (let i = 0; i < bytes.length; i += chunk) p.push(bytes.subarray(i, i + chunk));
  return p.end();
}

describe('StreamingProver: the reference proofs without holding the rows', () => {
  const v = loadToplocVectors<{ cases: BuildCase[] }>('build_proofs');
  for (const c of v.cases.filter((x) => x.skip_prefill)) {
    it(`${c.id}: golden proofs byte for byte, batch by batch`, () => {
      const f32 = c.rows_f32_b64 !== undefined ? base64ToFloat32(c.rows_f32_b64) : isXorshiftRowsSpec(c.rows_generator) ? generateXorshiftRows(c.rows_generator) : null;
      if (!f32) throw new Error(`case ${c.id} has no rows`);
      const rows = float32ArrayToBf16(f32);
      const params = { topk: c.topk, decodeBatchingSize: c.decode_batching_size, skipPrefill: true };
      expect(streamed(rows, c.n_tokens, c.hidden_size, params)).toEqual(c.proofs_base64);
    });
  }

  it('proves only the kept rows, as buildProofs over them, when the cut is in the rows not yet proven', () => {
    const r = xorshiftRandom(7);
    const h = 40;
    const rows = new Uint16Array(75 * h).map(() => (r() * 0xffff) & 0x7f7f);
    for (const keep of [75, 74, 64, 65, 33, 32, 1, 0]) {
      // 75 rows: two batches proven (64 rows), 11 still held; a cut below 64 must land on a batch edge.
      if (keep < 64 && keep % 32 !== 0 && keep !== 0) continue;
      const want = keep === 0 ? [] : buildProofs({ data: rows.slice(0, keep * h), rowCount: keep, hiddenSize: h }, MINER_PROOF_PARAMS);
      expect(streamed(rows, 75, h, MINER_PROOF_PARAMS, keep), `keep ${keep}`).toEqual(want);
    }
  });

  it('refuses (as a body error) a cut inside a batch whose rows are already gone', () => {
    const h = 8;
    const rows = new Uint16Array(70 * h).fill(0x3f80);
    expect(() => streamed(rows, 70, h, MINER_PROOF_PARAMS, 40)).toThrow(GenerateBodyError);
  });

  it('gives null proofs exactly when buildProofs does (chunks shorter than top-k)', () => {
    for (const [h, n] of [
      [2, 100],
      [4, 33],
      [5, 33],
      [3, 1],
      [64, 1],
      [64, 65],
    ] as const) {
      const rows = new Uint16Array(n * h).map((_, i) => (i * 2654435761) & 0x7f7f);
      expect(streamed(rows, n, h, MINER_PROOF_PARAMS), `h ${h} n ${n}`).toEqual(buildProofs({ data: rows, rowCount: n, hiddenSize: h }, MINER_PROOF_PARAMS));
    }
  });

  it('refuses parameters it cannot stream: a prefill chunk, nonsense sizes', () => {
    expect(() => new StreamingProver({ ...MINER_PROOF_PARAMS, skipPrefill: false })).toThrow(RangeError);
    expect(() => new StreamingProver({ ...MINER_PROOF_PARAMS, decodeBatchingSize: 0 })).toThrow(RangeError);
    expect(() => new StreamingProver({ ...MINER_PROOF_PARAMS, topk: Number.NaN })).toThrow(RangeError);
  });

  it('keptRowCount: never more rows than tokens with one, never below zero', () => {
    expect(keptRowCount(10, 10, 0)).toBe(10);
    expect(keptRowCount(10, 12, 1)).toBe(10);
    expect(keptRowCount(10, 8, 1)).toBe(7);
    expect(keptRowCount(3, 1, 5)).toBe(0);
  });
});

describe('GenerateBodyParser with proveAsParsed', () => {
  const specs: BodySpec[] = [
    { hidden: 64, prefillRows: 3, decodeRows: 99, prefillShape: 'full', seed: 1 },
    { hidden: 130, prefillRows: 1, decodeRows: 31, prefillShape: 'trimmed', seed: 2 },
    { hidden: 48, prefillRows: 1, decodeRows: 64, prefillShape: 'flat', seed: 3 },
    { hidden: 16, prefillRows: 0, decodeRows: 70, prefillShape: 'flat', seed: 4 }, // full cache hit: first token rowless
    { hidden: 3, prefillRows: 2, decodeRows: 40, prefillShape: 'full', seed: 5 }, // null proofs
  ];

  it('gives the proofs buildProofs gives over the parsed rows, whatever the chunking, JSON or SSE', () => {
    for (const spec of specs) {
      const b = buildBody(spec);
      const want = buildProofs({ data: b.expectedRows, rowCount: b.expectedRowCount, hiddenSize: spec.hidden }, MINER_PROOF_PARAMS);
      const texts = [b.json, buildSse(spec, 4, true).sse, buildSse(spec, 5, false).sse];
      for (const text of texts) {
        for (const chunk of [1 + spec.seed * 13, 4096]) {
          const got = parseProven(text, chunk);
          expect(got.proofs, `seed ${spec.seed} chunk ${chunk}`).toEqual(want);
          expect(got.rows.rowCount).toBe(b.expectedRowCount);
          expect(got.rows.data.length).toBe(0);
          expect(got.rowOffset).toBe(b.expectedOffset);
          expect(got.outputTokenIds).toEqual(b.tokenIds);
        }
      }
    }
  });

  it('proves the kept rows when the serve sends more rows than tokens, and refuses what it cannot prove', () => {
    const spec: BodySpec = { hidden: 32, prefillRows: 1, decodeRows: 69, prefillShape: 'trimmed', seed: 9 };
    const b = buildBody(spec);
    const cut = (tokens: number): string => {
      const o = JSON.parse(b.json) as { meta_info: { output_token_logprobs: unknown[] } };
      o.meta_info.output_token_logprobs = o.meta_info.output_token_logprobs.slice(0, tokens);
      return JSON.stringify(o);
    };
    // 70 rows: 64 proven as they came, 6 held. 66 tokens: the cut is in the held rows.
    const got = parseProven(cut(66), 500);
    expect(got.proofs).toEqual(buildProofs({ data: b.expectedRows.slice(0, 66 * 32), rowCount: 66, hiddenSize: 32 }, MINER_PROOF_PARAMS));
    expect(parseProven(cut(64), 500).proofs).toEqual(buildProofs({ data: b.expectedRows.slice(0, 64 * 32), rowCount: 64, hiddenSize: 32 }, MINER_PROOF_PARAMS));
    expect(() => parseProven(cut(40), 500)).toThrow(GenerateBodyError);
    expect(parseProven(cut(0), 500).proofs).toEqual([]);
  });

  it('still fails malformed bodies with the parser error', () => {
    for (const text of [
      '{"meta_info":{"hidden_states":[[1,2],[3]]}}',
      '{"meta_info":{"hidden_states":[[1,"x"]]}}',
      '{"__proto__":{"hidden_states":[[1]]}',
      'data: {"meta_info":{"hidden_states":[[1,2],[3]]}}\n\n',
    ]) {
      expect(() => parseProven(text, 3), text).toThrow(GenerateBodyError);
    }
  });

  it('holds one batch of rows, not the body: its row buffer stays one batch long', () => {
    const spec: BodySpec = { hidden: 256, prefillRows: 1, decodeRows: 300, prefillShape: 'trimmed', seed: 11 };
    const p = new GenerateBodyParser({ proveAsParsed: MINER_PROOF_PARAMS, expectRows: 4096 });
    p.push(enc.encode(buildBody(spec).json));
    const sink = (p as unknown as { doc: { rows: { data: Uint16Array } } }).doc.rows;
    expect(sink.data.length).toBeLessThanOrEqual(Math.max(1 << 16, 32 * 256));
    expect(p.end().rows.rowCount).toBe(301);
  });
});
