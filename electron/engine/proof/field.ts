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
 * (a * b) mod P for a, b < 2^16 without a float modulo: the product fits in 32 bits, and
 * 2^16 = 39 (mod P) folds the high half down twice.
 */
function mulMod(a: number, b: number): number {
  const x = Math.imul(a, b) >>> 0;
  const y = (x >>> 16) * 39 + (x & 0xffff);
  const z = (y >>> 16) * 39 + (y & 0xffff);
  return z >= P ? z - P : z;
}

/** x mod P for 0 <= x < 2^32. */
function reduce32(x: number): number {
  const y = (x >>> 16) * 39 + (x & 0xffff);
  const z = (y >>> 16) * 39 + (y & 0xffff);
  return z >= P ? z - P : z;
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
  const xs = new Int32Array(n);
  const dd = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    xs[i] = mod(x[i]!);
    dd[i] = mod(y[i]!);
  }
  // Newton divided differences, in place.
  for (let k = 1; k < n; k++) {
    for (let i = n - 1; i >= k; i--) {
      let num = dd[i]! - dd[i - 1]!;
      if (num < 0) num += P;
      let den = xs[i]! - xs[i - k]!;
      if (den < 0) den += P;
      if (den === 0) throw new InterpolationError('No modular inverse: gcd(a, m) != 1.');
      dd[i] = mulMod(num, inv[den]!);
    }
  }
  // Expansion: coeffs += dd[i] * prod_{j<i} (X - x[j]), the product kept in `factor`.
  const coeffs = new Int32Array(n);
  const factor = new Int32Array(n);
  factor[0] = 1;
  for (let i = 0; i < n; i++) {
    const d = dd[i]!;
    for (let j = 0; j <= i; j++) {
      const s = coeffs[j]! + mulMod(d, factor[j]!);
      coeffs[j] = s >= P ? s - P : s;
    }
    if (i + 1 < n) {
      const minusXi = xs[i] === 0 ? 0 : P - xs[i]!;
      let prev: number = factor[0]!;
      factor[0] = mulMod(prev, minusXi);
      for (let k = 1; k <= i + 1; k++) {
        const old = factor[k]!;
        const s = prev + mulMod(old, minusXi);
        factor[k] = s >= P ? s - P : s;
        prev = old;
      }
    }
  }
  return coeffs;
}

/**
 * Horner evaluation mod P, exactly as the C++ evaluate_polynomial: no reduction of x, the top
 * coefficient used as given. `coeffs` must not be empty.
 */
export function evaluatePolynomial(coeffs: ArrayLike<number>, x: number): number {
  let r = coeffs[coeffs.length - 1]!;
  const fast = x >= 0 && x < 0x10000 && r >= 0 && r < 0x10000;
  for (let i = coeffs.length - 2; i >= 0; i--) {
    const c = coeffs[i]!;
    // r, x, c < 2^16 keep r * x + c below 2^32: no float modulo needed.
    r = fast && c >= 0 && c < 0x10000 ? reduce32(r * x + c) : (r * x + c) % P;
  }
  return mod(r);
}
