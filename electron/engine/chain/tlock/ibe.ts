// Boneh-Franklin style timelock encryption as tle rev 5416406 does it for drand quicknet (FORMAT.md 3):
// the round's identity hashes to G1, the beacon key lives in G2, and the round's signature (sk·Q_id) is the
// private key that opens it. Pure and synchronous: callers that must not block the loop use tlock-worker.ts.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { NONCE_BYTES, TAG_BYTES, parseTle, serializeTle } from './layout.ts';
import { QUICKNET, QUICKNET_PUBLIC_KEY, roundIdentity } from './quicknet.ts';
import { errorMessage } from '../../../../shared/errors.ts';

const { G1, G2, fields } = bls12_381;
const FR_ORDER = fields.Fr.ORDER;
const FP_BYTES = 48;

type Gt = ReturnType<typeof bls12_381.pairing>;

/** Why a decryption failed: the signature is not this ciphertext's round (or not quicknet's), or the bytes are bad. */
export class TlockDecryptError extends Error {
  override name = 'TlockDecryptError';
}

function leBytes(n: bigint, len: number): Uint8Array {
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

function beToBigint(b: Uint8Array): bigint {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  return n;
}

function xor(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i] ?? 0) ^ (b[i] ?? 0);
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** H2: SHA-256 of the GT element as arkworks serialises Fq12: 12 base-field elements, 48 bytes little-endian each. */
function hashGt(g: Gt): Uint8Array {
  const coeffs: bigint[] = [];
  for (const c6 of [g.c0, g.c1]) for (const c2 of [c6.c0, c6.c1, c6.c2]) coeffs.push(c2.c0, c2.c1);
  const buf = new Uint8Array(coeffs.length * FP_BYTES);
  coeffs.forEach((c, i) => buf.set(leBytes(c, FP_BYTES), i * FP_BYTES));
  return sha256(buf);
}

/** H3: r = Fr::from_be_bytes_mod_order(SHA-256(sigma ‖ key)). Zero is not a usable scalar (probability 2^-255). */
function h3(sigma: Uint8Array, key: Uint8Array): bigint {
  const r = beToBigint(sha256(concat(sigma, key))) % FR_ORDER;
  if (r === 0n) throw new TlockDecryptError('the derived scalar is zero');
  return r;
}

/** Q_id: the round identity hashed to G1 (what quicknet signs). */
export const identityPoint = (round: number) => G1.hashToCurve(roundIdentity(round), { DST: QUICKNET.dst });

let quicknetKey: InstanceType<typeof G2.Point> | undefined;
function beaconKey(bytes?: Uint8Array): InstanceType<typeof G2.Point> {
  if (!bytes || bytes === QUICKNET_PUBLIC_KEY) return (quicknetKey ??= G2.Point.fromBytes(QUICKNET_PUBLIC_KEY));
  if (bytes.length !== 96) throw new RangeError(`a beacon public key is 96 bytes (G2 compressed), got ${bytes.length}`);
  try {
    return G2.Point.fromBytes(bytes);
  } catch (e) {
    throw new RangeError(`the beacon public key is not a valid G2 point (${errorMessage(e)})`);
  }
}

export interface EncryptOptions {
  /** The 32-byte AES key (the "ephemeral secret"); random when omitted. Only tests pin it. */
  esk?: Uint8Array;
  /** The 12-byte AES-GCM nonce; random when omitted. */
  nonce?: Uint8Array;
  /** The random scalar t behind sigma; random when omitted. */
  t?: bigint;
  /** The beacon's G2 public key (96 bytes); quicknet's when omitted. The chain's Drand.BeaconConfig says which. */
  publicKey?: Uint8Array;
}

/** Encrypt `plaintext` so that only quicknet's signature for `round` opens it. Returns the serialised ciphertext. */
export function tlockEncrypt(plaintext: Uint8Array, round: number, opts: EncryptOptions = {}): Uint8Array {
  const esk = opts.esk ?? new Uint8Array(randomBytes(32));
  const nonce = opts.nonce ?? new Uint8Array(randomBytes(NONCE_BYTES));
  if (esk.length !== 32) throw new RangeError('the AES key is 32 bytes');
  if (nonce.length !== NONCE_BYTES) throw new RangeError('the AES-GCM nonce is 12 bytes');
  const t = opts.t ?? beToBigint(new Uint8Array(randomBytes(48))) % FR_ORDER;
  const sigma = sha256(leBytes(t, 32));
  const r = h3(sigma, esk);
  const u = G2.Point.BASE.multiply(r);
  const gid = bls12_381.pairing(identityPoint(round), beaconKey(opts.publicKey).multiply(r));
  const v = xor(sigma, hashGt(gid));
  const w = xor(esk, sha256(sigma));
  const cipher = createCipheriv('aes-256-gcm', esk, nonce);
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return serializeTle({ u: u.toBytes(true), v, w, sealed: new Uint8Array(ct), nonce });
}

/** Parse a 48-byte compressed G1 signature (an optional "0x" prefix in hex form is the caller's to strip). */
export function parseSignature(sig: Uint8Array): InstanceType<typeof G1.Point> {
  if (sig.length !== 48) throw new TlockDecryptError(`a quicknet signature is 48 bytes, got ${sig.length}`);
  try {
    return G1.Point.fromBytes(sig);
  } catch (e) {
    throw new TlockDecryptError(`the signature is not a valid BLS12-381 G1 point (${errorMessage(e)})`);
  }
}

/** Open a ciphertext with the signature of its round. Throws TlockDecryptError when the signature does not fit. */
export function tlockDecrypt(ciphertext: Uint8Array, signature: Uint8Array): Uint8Array {
  const parts = parseTle(ciphertext);
  const sig = parseSignature(signature);
  let u: InstanceType<typeof G2.Point>;
  try {
    u = G2.Point.fromBytes(parts.u);
  } catch (e) {
    throw new TlockDecryptError(`the ciphertext's U is not a valid G2 point (${errorMessage(e)})`);
  }
  const sigma = xor(parts.v, hashGt(bls12_381.pairing(sig, u)));
  const key = xor(parts.w, sha256(sigma));
  // The Fujisaki-Okamoto check: only the right signature recovers the sigma and key that rebuild U.
  if (!G2.Point.BASE.multiply(h3(sigma, key)).equals(u)) {
    throw new TlockDecryptError('the signature does not open this ciphertext (InvalidSignature): it is for another round or another beacon');
  }
  const sealed = parts.sealed;
  const decipher = createDecipheriv('aes-256-gcm', key, parts.nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return new Uint8Array(Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]));
  } catch {
    throw new TlockDecryptError('the AES-GCM tag does not match: the ciphertext body was altered');
  }
}

/** True when `signature` is quicknet's signature of `round` (two pairings; the chain stores only verified pulses). */
export function verifyRoundSignature(round: number, signature: Uint8Array, publicKey?: Uint8Array): boolean {
  try {
    return bls12_381.shortSignatures.verify(parseSignature(signature), identityPoint(round), beaconKey(publicKey));
  } catch {
    return false;
  }
}
