// Arithmetic over the prime field GF(65497) the TOPLOC polynomials live in, and the reference's
// interpolation (Newton divided differences expanded to ascending monomial coefficients).
// Every product stays below 2^53, so plain doubles are exact.

export const FIELD_PRIME = 65497;
const P = FIELD_PRIME;

let inverses: Int32Array | null = null;

/** Multiplicative inverses of 1..P-1, built once: interpolation needs k^2/2 of them per proof. */
function inverseTable(): Int32Array {
  if (inverses) return inverses;
  const inv = new Int32Array(P);
  inv[1] = 1;
  for (let i = 2; i < P; i++) inv[i] = ((P - Math.floor(P / i)) * inv[P % i]!) % P;
  inverses = inv;
  return inv;
}

function mod(v: number): number {
  const r = v % P;
  return r < 0 ? r + P : r;
}

const stamp = new Int32Array(P + 1);
let epoch = 0;

export class InterpolationError extends Error {
  override readonly name = 'InterpolationError';
}

/**
 * The largest m in 65497..1 such that all x % m are distinct, as the C++ ProofPoly.from_points
 * searches (not the Python helper, which stops at 32769). Returns 0 when there is none.
 */
export function injectiveModulus(x: ArrayLike<number>): number {
  const n = x.length;
  for (let m = P; m > 0; m--) {
    // A fresh epoch per candidate marks the residues seen, so the table is never cleared.
    if (epoch >= 0x7ffffff0) {
      stamp.fill(0);
      epoch = 0;
    }
    const e = ++epoch;
    let ok = true;
    for (let i = 0; i < n; i++) {
      const r = x[i]! % m;
      const slot = r < 0 ? r + m : r;
      if (stamp[slot] === e) {
        ok = false;
        break;
      }
      stamp[slot] = e;
    }
    if (ok) return m;
  }
  return 0;
}

/**
 * Coefficients (ascending degree, each in [0, P)) of the polynomial of degree < n through
 * (x[i], y[i] mod P). The x must be distinct mod P.
 */
export function interpolate(x: ArrayLike<number>, y: ArrayLike<number>): Int32Array {
  const n = x.length;
  if (n !== y.length) throw new InterpolationError('x and y must have the same length');
  if (n === 0) throw new InterpolationError('Input vectors must not be empty');
  const inv = inverseTable();
  const dd = new Float64Array(n);
  for (let i = 0; i < n; i++) dd[i] = mod(y[i]!);
  for (let k = 1; k < n; k++) {
    for (let i = n - 1; i >= k; i--) {
      const num = mod(dd[i]! - dd[i - 1]!);
      const den = mod(x[i]! - x[i - k]!);
      if (den === 0) throw new InterpolationError('No modular inverse: gcd(a, m) != 1.');
      dd[i] = (num * inv[den]!) % P;
    }
  }
  const coeffs = new Float64Array(n);
  const factor = new Float64Array(n);
  factor[0] = 1;
  for (let i = 0; i < n; i++) {
    const d = dd[i]!;
    for (let j = 0; j <= i; j++) coeffs[j] = (coeffs[j]! + d * factor[j]!) % P;
    if (i + 1 < n) {
      const minusXi = mod(-x[i]!);
      let prev: number = factor[0]!;
      factor[0] = (prev * minusXi) % P;
      for (let k = 1; k <= i + 1; k++) {
        const old = factor[k]!;
        factor[k] = (prev + old * minusXi) % P;
        prev = old;
      }
    }
  }
  return Int32Array.from(coeffs);
}

/**
 * Horner evaluation mod P, exactly as the C++ evaluate_polynomial: no reduction of x, the top
 * coefficient used as given. `coeffs` must not be empty.
 */
export function evaluatePolynomial(coeffs: ArrayLike<number>, x: number): number {
  let r = coeffs[coeffs.length - 1]!;
  for (let i = coeffs.length - 2; i >= 0; i--) r = (r * x + coeffs[i]!) % P;
  return mod(r);
}
