// JSON number scanning straight from UTF-8 bytes to bf16, without making a string per number.
//
// The reference reads the text with Python's json (correctly rounded float64), then numpy rounds to
// float32 and torch to bf16. The fast path builds the decimal mantissa in a double: while it stays
// below 2^53 and |exp10| <= 22 the result is exact (Clinger's fast path). Longer mantissas
// (sglang's float32 reprs have 16-17 digits) give a value within a few float64 ulps; if every
// float64 that close rounds to the same float32 the answer is exact anyway, otherwise (rarely, and
// for the double-rounding traps) the bytes go through Number(), which rounds correctly.

/** Returned when the buffer ended inside the number and more bytes may follow. */
export const SCAN_INCOMPLETE = -1;
/** Returned when the bytes are not a plain JSON number (a literal such as NaN, or garbage). */
export const SCAN_INVALID = -2;

const POW10 = new Float64Array(23);
POW10[0] = 1;
for (let i = 1; i < 23; i++) POW10[i] = POW10[i - 1]! * 10;

/** Relative width of the float64 neighbourhood that must round to one float32. */
const SAFE_LOW = 1 - 2 ** -44;
const SAFE_HIGH = 1 + 2 ** -44;

const latin1 = new TextDecoder('latin1');
const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** Out-parameters of the last scan (one shared object: no allocation per number). */
export const scanResult = { bits: 0, value: 0 };

/**
 * Scans one JSON number at buf[pos] and stores its bf16 bits in scanResult.bits. Returns the index
 * just past the number, SCAN_INCOMPLETE when `end` was reached and `final` is false, or
 * SCAN_INVALID. The caller checks what follows the number.
 */
export function scanNumberToBf16(buf: Uint8Array, pos: number, end: number, final: boolean): number {
  let p = pos;
  let neg = false;
  if (buf[p] === 45) {
    neg = true;
    p++;
  }
  if (p >= end) return final ? SCAN_INVALID : SCAN_INCOMPLETE;
  const digitsStart = p;
  let c = buf[p]! - 48;
  let mant = 0;
  let exp10 = 0;
  let isInt = true;
  if (c === 0) {
    p++;
  } else if (c > 0 && c <= 9) {
    mant = c;
    p++;
    while (p < end) {
      c = buf[p]! - 48;
      if (c < 0 || c > 9) break;
      mant = mant * 10 + c;
      p++;
    }
  } else return SCAN_INVALID;
  if (p < end && buf[p] === 46) {
    isInt = false;
    p++;
    const fracStart = p;
    while (p < end) {
      c = buf[p]! - 48;
      if (c < 0 || c > 9) break;
      mant = mant * 10 + c;
      p++;
    }
    if (p === fracStart) return p >= end && !final ? SCAN_INCOMPLETE : SCAN_INVALID;
    exp10 = fracStart - p;
  }
  const digits = p - digitsStart;
  if (p < end && (buf[p] === 101 || buf[p] === 69)) {
    isInt = false;
    p++;
    let eneg = false;
    if (p < end && (buf[p] === 43 || buf[p] === 45)) {
      eneg = buf[p] === 45;
      p++;
    }
    const expStart = p;
    let e = 0;
    while (p < end && (c = buf[p]! - 48) >= 0 && c <= 9) {
      if (e < 100000) e = e * 10 + c;
      p++;
    }
    if (p === expStart) return p >= end && !final ? SCAN_INCOMPLETE : SCAN_INVALID;
    exp10 += eneg ? -e : e;
  }
  if (p >= end && !final) return SCAN_INCOMPLETE;
  // JSON forbids leading zeros ("01"); Python's json rejects them too.
  if (p < end && buf[p]! >= 48 && buf[p]! <= 57) return SCAN_INVALID;

  let v: number;
  if (mant === 0) {
    // Python reads the integer literal -0 as int 0, so only a float -0 keeps its sign.
    v = neg && !isInt ? -0 : 0;
  } else if (mant <= 9007199254740992 && exp10 >= -22 && exp10 <= 22) {
    v = exp10 >= 0 ? mant * POW10[exp10]! : mant / POW10[-exp10]!;
    if (neg) v = -v;
  } else if (exp10 >= -44 && exp10 <= 44 && digits <= 64) {
    v = mant;
    let e = exp10;
    if (e < -22) {
      v /= 1e22;
      e += 22;
    } else if (e > 22) {
      v *= 1e22;
      e -= 22;
    }
    v = e >= 0 ? v * POW10[e]! : v / POW10[-e]!;
    if (neg) v = -v;
    const f = Math.fround(v);
    if (Math.fround(v * SAFE_LOW) !== f || Math.fround(v * SAFE_HIGH) !== f) v = Number(latin1.decode(buf.subarray(pos, p)));
  } else {
    v = Number(latin1.decode(buf.subarray(pos, p)));
  }
  scanResult.value = v;
  // float32 rounding happens in the store; then bf16 round-to-nearest-even (no NaN can come from digits).
  F32[0] = v;
  const u = U32[0]!;
  scanResult.bits = ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
  return p;
}

/** True for bytes that can continue a number or literal token ([A-Za-z0-9+-.]). */
export function isTokenByte(b: number): boolean {
  return (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 43 || b === 45 || b === 46;
}

/**
 * bf16 bits of a non-number token Python's json (then numpy) accepts in a row: NaN, Infinity,
 * -Infinity, and null (orjson writes NaN as null; numpy reads None as NaN). -1 when not one.
 */
export function literalToBf16(buf: Uint8Array, start: number, stop: number): number {
  switch (latin1.decode(buf.subarray(start, stop))) {
    case 'NaN':
    case 'null':
      return 0xffff;
    case 'Infinity':
      return 0x7f80;
    case '-Infinity':
      return 0xff80;
    default:
      return -1;
  }
}
