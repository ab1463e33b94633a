// The TLECiphertext bytes subtensor decrypts (tle rev 5416406, ark-serialize 0.4; vectors/tlock/FORMAT.md 1):
//   U (G2 compressed, 96) ‖ Vec V (32) ‖ Vec W (32) ‖ Vec body ‖ Vec "AES_GCM_",  body = Vec (ct ‖ tag16) ‖ Vec nonce(12)
// where Vec = u64 little-endian length then the bytes. Later tle versions dropped the prefixes on V and W:
// that layout is NOT what the chain decrypts, so parsing here is strict about every length.

export const U_BYTES = 96;
export const HASH_BYTES = 32;
export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;
export const CIPHER_SUITE = new TextEncoder().encode('AES_GCM_');
/** Fixed overhead: total size = plaintext length + 244. */
export const OVERHEAD_BYTES = U_BYTES + 3 * 8 + 2 * HASH_BYTES + 2 * 8 + TAG_BYTES + NONCE_BYTES + 8 + CIPHER_SUITE.length;
/** commit_timelocked_weights takes a BoundedVec of at most 5000 bytes. */
export const MAX_COMMIT_BYTES = 5000;

export interface TleParts {
  u: Uint8Array;
  v: Uint8Array;
  w: Uint8Array;
  /** AES-256-GCM ciphertext followed by its 16-byte tag. */
  sealed: Uint8Array;
  nonce: Uint8Array;
}

export class TleFormatError extends Error {
  override name = 'TleFormatError';
}

function u64le(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
  return b;
}

function vec(bytes: Uint8Array): Uint8Array[] {
  return [u64le(bytes.length), bytes];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function serializeTle(p: TleParts): Uint8Array {
  if (p.u.length !== U_BYTES || p.v.length !== HASH_BYTES || p.w.length !== HASH_BYTES || p.nonce.length !== NONCE_BYTES || p.sealed.length < TAG_BYTES) {
    throw new TleFormatError('ciphertext parts have the wrong sizes');
  }
  const body = concat([...vec(p.sealed), ...vec(p.nonce)]);
  return concat([p.u, ...vec(p.v), ...vec(p.w), ...vec(body), ...vec(CIPHER_SUITE)]);
}

/** A bounds-checked reader: every length prefix is checked against what is left before it is used. */
class Reader {
  private at = 0;
  private readonly bytes: Uint8Array;
  private readonly what: string;
  constructor(bytes: Uint8Array, what: string) {
    this.bytes = bytes;
    this.what = what;
  }
  take(n: number, field: string): Uint8Array {
    if (n > this.bytes.length - this.at) throw new TleFormatError(`${this.what} is cut short in ${field} (needs ${n} bytes, ${this.bytes.length - this.at} left)`);
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  vec(field: string, exact?: number): Uint8Array {
    const prefix = this.take(8, `${field} length`);
    const len = new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true);
    if (exact !== undefined && len !== BigInt(exact)) throw new TleFormatError(`${this.what}: ${field} must be ${exact} bytes, the length prefix says ${len}`);
    if (len > BigInt(this.bytes.length - this.at)) throw new TleFormatError(`${this.what}: ${field} claims ${len} bytes, only ${this.bytes.length - this.at} left`);
    return this.take(Number(len), field);
  }
  end(): void {
    if (this.at !== this.bytes.length) throw new TleFormatError(`${this.what} has ${this.bytes.length - this.at} trailing bytes`);
  }
}

export function parseTle(bytes: Uint8Array): TleParts {
  if (!(bytes instanceof Uint8Array)) throw new TleFormatError('a ciphertext is bytes');
  if (bytes.length < OVERHEAD_BYTES) throw new TleFormatError(`a timelock ciphertext is at least ${OVERHEAD_BYTES} bytes, got ${bytes.length}`);
  const r = new Reader(bytes, 'the ciphertext');
  const u = r.take(U_BYTES, 'U');
  const v = r.vec('V', HASH_BYTES);
  const w = r.vec('W', HASH_BYTES);
  const body = r.vec('body');
  const suite = r.vec('cipher suite', CIPHER_SUITE.length);
  r.end();
  if (!suite.every((b, i) => b === CIPHER_SUITE[i])) throw new TleFormatError('the cipher suite is not AES_GCM_');
  const b = new Reader(body, 'the ciphertext body');
  const sealed = b.vec('AES-GCM ciphertext');
  const nonce = b.vec('nonce', NONCE_BYTES);
  b.end();
  if (sealed.length < TAG_BYTES) throw new TleFormatError('the AES-GCM ciphertext is shorter than its tag');
  return { u, v, w, sealed, nonce };
}
