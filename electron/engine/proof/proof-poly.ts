// One TOPLOC proof: the injective modulus and the interpolating polynomial's coefficients, and
// their wire form (big-endian uint16 modulus, then one big-endian uint16 per coefficient, base64).
import { injectiveModulus, interpolate, InterpolationError } from './field.ts';

export interface ProofPoly {
  /** 0 for a null proof. */
  readonly modulus: number;
  /** Ascending degree. Decoded proofs keep what the bytes said (values up to 65535). */
  readonly coeffs: Int32Array;
}

export class ProofFormatError extends Error {
  override readonly name = 'ProofFormatError';
}

/** The placeholder the reference returns when it cannot build proofs: modulus 0, k zero coefficients. */
export function nullProof(k: number): ProofPoly {
  return { modulus: 0, coeffs: new Int32Array(k) };
}

/** ProofPoly.from_points: injective modulus search, then interpolation through (x % m, y). */
export function proofFromPoints(x: ArrayLike<number>, y: ArrayLike<number>): ProofPoly {
  if (x.length !== y.length) throw new InterpolationError('x and y must have the same length');
  const modulus = injectiveModulus(x);
  if (modulus === 0) throw new InterpolationError('No injective modulus found!');
  const xm = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) xm[i] = x[i]! % modulus;
  return { modulus, coeffs: interpolate(xm, y) };
}

export function proofToBytes(p: ProofPoly): Uint8Array {
  const out = new Uint8Array(2 + 2 * p.coeffs.length);
  out[0] = (p.modulus >> 8) & 0xff;
  out[1] = p.modulus & 0xff;
  for (let i = 0; i < p.coeffs.length; i++) {
    const c = p.coeffs[i]!;
    out[2 + 2 * i] = (c >> 8) & 0xff;
    out[3 + 2 * i] = c & 0xff;
  }
  return out;
}

export function proofToBase64(p: ProofPoly): string {
  const b = proofToBytes(p);
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
}

/** ProofPoly.from_bytes: a trailing odd byte is ignored; fewer than 2 bytes is an error. */
export function proofFromBytes(data: Uint8Array): ProofPoly {
  if (data.length < 2) throw new ProofFormatError('Data too short');
  const n = (data.length - 2) >> 1;
  const coeffs = new Int32Array(n);
  for (let i = 0; i < n; i++) coeffs[i] = (data[2 + 2 * i]! << 8) | data[3 + 2 * i]!;
  return { modulus: (data[0]! << 8) | data[1]!, coeffs };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

/**
 * Base64 as the reference's C++ decoder reads it: stops at the first '=', padding optional, a last
 * group of n chars gives n-1 bytes. Characters outside the alphabet (which the C++ turns into
 * garbage bits) are rejected instead.
 */
export function decodeBase64Like(text: string): Uint8Array {
  let end = text.indexOf('=');
  if (end < 0) end = text.length;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let o = 0;
  let acc = 0;
  let have = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? DECODE[c]! : -1;
    if (v < 0) throw new ProofFormatError(`invalid base64 character at offset ${i}`);
    acc = (acc << 6) | v;
    have += 6;
    if (have >= 8) {
      have -= 8;
      out[o++] = (acc >> have) & 0xff;
    }
  }
  return out.subarray(0, o);
}

export function proofFromBase64(text: string): ProofPoly {
  return proofFromBytes(decodeBase64Like(text));
}
