import { describe, expect, it } from 'vitest';
import { GenerateBodyParser } from '../../../electron/engine/proof/index.ts';
import { buildBody, buildSse } from '../../helpers/generate-bodies.ts';

const enc = new TextEncoder();

describe('GenerateBodyParser sized by an expected row count', () => {
  it('gives the same rows whatever the hint says, hostile hints included', () => {
    const spec = { hidden: 300, prefillRows: 3, decodeRows: 40, prefillShape: 'full' as const, seed: 5 };
    for (const text of [buildBody(spec).json, buildSse(spec, 5, false).sse]) {
      const plain = new GenerateBodyParser();
      plain.push(enc.encode(text));
      const want = plain.end();
      for (const hint of [41, 1, 4096, 0, -3, Number.NaN, 2.5, 1e12, Number.MAX_SAFE_INTEGER, '12' as unknown as number]) {
        const p = new GenerateBodyParser({ expectRows: hint });
        const bytes = enc.encode(text);
        for (let i = 0; i < bytes.length; i += 997) p.push(bytes.subarray(i, i + 997));
        const got = p.end();
        expect(got.rows.rowCount).toBe(want.rows.rowCount);
        expect(got.rows.data.length).toBe(want.rows.rowCount * want.rows.hiddenSize);
        expect(Array.from(got.rows.data)).toEqual(Array.from(want.rows.data));
      }
    }
  });
});
