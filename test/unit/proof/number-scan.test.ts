import { describe, expect, it } from 'vitest';
import { float64ToBf16 } from '../../../electron/engine/proof/bf16.ts';
import { scanNumberToBf16, SCAN_INCOMPLETE, SCAN_INVALID, scanResult } from '../../../electron/engine/proof/number-scan.ts';
import { xorshiftRandom as rng } from '../../helpers/xorshift.ts';

const enc = new TextEncoder();

function scan(text: string): number {
  const b = enc.encode(text);
  const r = scanNumberToBf16(b, 0, b.length, true);
  if (r !== b.length) throw new Error(`scan of ${text} stopped at ${r}`);
  return scanResult.bits;
}

describe('scanNumberToBf16', () => {
  it('agrees with Number() then float32 then bf16 on many spellings of many values', () => {
    const r = rng(2024);
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    let checked = 0;
    const wrong: string[] = [];
    for (let i = 0; i < 20000; i++) {
      // Random float32 bit patterns over the whole finite range, and values near bf16 midpoints.
      u32[0] = i % 2 ? Math.floor(r() * 0x7f7fffff) | (r() < 0.5 ? 0x80000000 : 0) : ((Math.floor(r() * 0xff) << 23) | 0x8000 | Math.floor(r() * 4)) >>> 0;
      const x = f32[0]!;
      if (!Number.isFinite(x)) continue;
      const near = x * (1 + (r() - 0.5) * 2 ** -40);
      for (const v of [x, near]) {
        const texts = [String(v), v.toExponential(), v.toPrecision(1 + Math.floor(r() * 21)), v.toExponential(Math.floor(r() * 25)).replace('e', 'E')];
        for (const t of texts) {
          if (scan(t) !== float64ToBf16(Number(t))) wrong.push(t);
          checked++;
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(100000);
  });

  it('handles the shapes JSON allows and refuses the ones it does not', () => {
    expect(scan('-0')).toBe(0); // Python: int 0
    expect(scan('-0.0')).toBe(0x8000);
    expect(scan('1e-50')).toBe(0);
    expect(scan('-1e-50')).toBe(0x8000);
    expect(scan('1e39')).toBe(0x7f80);
    expect(scan('0.' + '0'.repeat(60) + '1')).toBe(float64ToBf16(1e-61));
    expect(scan('1234567890123456789012345678901234567890')).toBe(float64ToBf16(Number('1234567890123456789012345678901234567890')));
    const b = (t: string, final = true): number => scanNumberToBf16(enc.encode(t), 0, enc.encode(t).length, final);
    expect(b('01')).toBe(SCAN_INVALID);
    expect(b('1.')).toBe(SCAN_INVALID);
    expect(b('1e')).toBe(SCAN_INVALID);
    expect(b('-')).toBe(SCAN_INVALID);
    expect(b('.5')).toBe(SCAN_INVALID);
    expect(b('1.5', false)).toBe(SCAN_INCOMPLETE);
    expect(b('1.5,', false)).toBe(3);
  });
});
