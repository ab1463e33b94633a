import { describe, expect, it } from 'vitest';
import { bf16Text, pyFloatRepr, toBf16 } from '../../doubles/fake-sglang/numerics.ts';
import { perturbRow } from '../../doubles/fake-sglang/perturb.ts';

describe('pyFloatRepr (Python repr of a float, as sglang JSON carries it)', () => {
  it.each([
    [0.0123291015625, '0.0123291015625'],
    [-1.5, '-1.5'],
    [1, '1.0'],
    [123, '123.0'],
    [0, '0.0'],
    [-0, '-0.0'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [3.7770107155665755e-5, '3.7770107155665755e-05'],
    [-6.333773490041494e-5, '-6.333773490041494e-05'],
    [1e16, '1e+16'],
    [1.5e16, '1.5e+16'],
    [123456789012345.6, '123456789012345.6'],
    [2.5e-300, '2.5e-300'],
    [1e100, '1e+100'],
    [0.1, '0.1'],
  ])('%s -> %s', (x, text) => {
    expect(pyFloatRepr(x)).toBe(text);
  });

  it('bf16Text agrees with pyFloatRepr and round-trips through JSON', () => {
    for (const x of [0.0123291015625, -1.5, -0.01385498046875, 3.921875, 1.1920928955078125e-7]) {
      expect(bf16Text(x)).toBe(pyFloatRepr(x));
      expect(JSON.parse(bf16Text(x))).toBe(x);
    }
  });
});

describe('toBf16', () => {
  // From /work/shared/vectors/toploc/bf16_conversion.json (f32 bits -> bf16 bits).
  it.each([
    [0x3f808000, 0x3f80],
    [0x3f818000, 0x3f82],
    [0x3fffffff, 0x4000],
    [0x00008001, 0x0001],
    [0x7f7f8000, 0x7f80],
    [0x3dcccccd, 0x3dcd],
  ])('f32 %s -> bf16 %s', (f32bits, bf16bits) => {
    const f = new Float32Array(new Uint32Array([f32bits]).buffer)[0]!;
    const out = new Uint32Array(new Float32Array([toBf16(f)]).buffer)[0]!;
    expect(out >>> 16).toBe(bf16bits);
    expect(out & 0xffff).toBe(0);
  });
});

describe('perturbRow', () => {
  const base = (): Float32Array => Float32Array.from({ length: 256 }, (_, j) => toBf16(Math.sin(j) * 2));

  it('numerics noise moves values slightly and stays bf16', () => {
    const honest = base();
    const noisy = perturbRow(base(), 5, { noise: 0.01, quantize: null, seed: 53 });
    let changed = 0;
    noisy.forEach((v, j) => {
      expect(toBf16(v)).toBe(v);
      expect(Math.abs(v - honest[j]!)).toBeLessThanOrEqual(Math.abs(honest[j]!) * 0.02 + 1e-6);
      if (v !== honest[j]) changed++;
    });
    expect(changed).toBeGreaterThan(10);
  });

  it('int4 quantisation leaves at most 16 distinct levels per group of 32', () => {
    const q = perturbRow(base(), 5, { noise: 0, quantize: 'int4', seed: 53 });
    for (let g = 0; g < q.length; g += 32) expect(new Set(q.subarray(g, g + 32)).size).toBeLessThanOrEqual(16);
    expect(new Set(q).size).toBeGreaterThan(16);
  });
});
