// TEST DOUBLE (fake sglang): the number plumbing the fake model and its JSON share: seeded
// hashing, bf16 rounding (what the real serve's activations are), and Python's float repr
// (what sglang's JSON carries, e.g. 0.0123291015625, -1.5, 3.7770107155665755e-05).

/** 32-bit avalanche mix of up to three integers: the fake model's only source of "weights". */
export function mix32(a: number, b = 0, c = 0): number {
  let h = (a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca77)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Uniform in [-1, 1) from a hash. */
export function unit(a: number, b = 0, c = 0): number {
  return mix32(a, b, c) / 2147483648 - 1;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Round a float to bf16 (nearest, ties to even on the upper 16 bits), returned as a number. */
export function toBf16(x: number): number {
  f32[0] = x;
  const u = u32[0]!;
  if ((u & 0x7f800000) === 0x7f800000) return f32[0];
  u32[0] = ((u + 0x7fff + ((u >>> 16) & 1)) & 0xffff0000) >>> 0;
  return f32[0];
}

export function roundRowToBf16(row: Float32Array): Float32Array {
  for (let j = 0; j < row.length; j++) row[j] = toBf16(row[j]!);
  return row;
}

/** Python's repr() of a float64 (json.dumps uses it): shortest round-trip digits, fixed
 * notation for decimal exponents -4..15, otherwise d.ddde±XX. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mant, expText] = Math.abs(x).toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const digits = mant.replace('.', '');
  if (exp < -4 || exp >= 16) {
    const m = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

// Every bf16 value has one repr; hidden-state JSON is millions of them, so look them up.
const bf16Repr: string[] = new Array<string>(65536);

/** repr() of a value that is already bf16-exact (the upper 16 bits of its float32 pattern). */
export function bf16Text(x: number): string {
  f32[0] = x;
  const key = u32[0]! >>> 16;
  let s = bf16Repr[key];
  if (s === undefined) {
    s = pyFloatRepr(f32[0]);
    bf16Repr[key] = s;
  }
  return s;
}
