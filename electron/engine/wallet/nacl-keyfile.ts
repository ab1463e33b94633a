// btwallet's "$NACL" envelope: "$NACL" ‖ nonce(24) ‖ XSalsa20-Poly1305 box, key = Argon2i v1.3 over the
// password with a fixed salt and libsodium's argon2i SENSITIVE limits (keyfile.rs derive_key).
// These run synchronously for ~7-10 s and 512 MiB: call them from nacl-off-thread.ts, not the main thread.
import sodium from 'libsodium-wrappers-sumo';

export const NACL_PREFIX = new TextEncoder().encode('$NACL');
/** b"\x13q\x83\xdf\xf1Z\t\xbc\x9c\x90\xb5Q\x879\xe9\xb1" in btwallet. */
export const NACL_SALT = Uint8Array.from([0x13, 0x71, 0x83, 0xdf, 0xf1, 0x5a, 0x09, 0xbc, 0x9c, 0x90, 0xb5, 0x51, 0x87, 0x39, 0xe9, 0xb1]);

export interface KdfLimits {
  opslimit: number;
  memlimit: number;
}

/**
 * crypto_pwhash_argon2i OPSLIMIT/MEMLIMIT_SENSITIVE (8 passes, 512 MiB) — not the generic argon2id
 * SENSITIVE constants. Every real btcli file uses these; other limits exist only so tests of the
 * wrong-password path do not each pay 512 MiB.
 */
export const BTWALLET_KDF: KdfLimits = { opslimit: 8, memlimit: 536_870_912 };

export class NaclBadPassword extends Error {
  constructor() {
    super('the password does not open this keyfile');
    this.name = 'NaclBadPassword';
  }
}

export async function naclReady(): Promise<typeof sodium> {
  await sodium.ready;
  return sodium;
}

export function deriveNaclKey(s: typeof sodium, password: string, kdf: KdfLimits = BTWALLET_KDF): Uint8Array {
  return s.crypto_pwhash(32, new TextEncoder().encode(password), NACL_SALT, kdf.opslimit, kdf.memlimit, s.crypto_pwhash_ALG_ARGON2I13);
}

export function isNaclKeyfile(data: Uint8Array): boolean {
  return data.length >= NACL_PREFIX.length && NACL_PREFIX.every((b, i) => data[i] === b);
}

export function naclOpen(s: typeof sodium, data: Uint8Array, key: Uint8Array): Uint8Array {
  if (!isNaclKeyfile(data)) throw new Error('not a $NACL keyfile');
  const nonceEnd = NACL_PREFIX.length + s.crypto_secretbox_NONCEBYTES;
  if (data.length < nonceEnd + s.crypto_secretbox_MACBYTES) throw new Error('the $NACL keyfile is truncated');
  try {
    return s.crypto_secretbox_open_easy(data.subarray(nonceEnd), data.subarray(NACL_PREFIX.length, nonceEnd), key);
  } catch {
    // libsodium cannot tell a wrong password from a corrupted box; the password is by far the likelier cause.
    throw new NaclBadPassword();
  }
}

export function naclSeal(s: typeof sodium, plaintext: Uint8Array, key: Uint8Array): Uint8Array {
  const nonce = s.randombytes_buf(s.crypto_secretbox_NONCEBYTES);
  const box = s.crypto_secretbox_easy(plaintext, nonce, key);
  const out = new Uint8Array(NACL_PREFIX.length + nonce.length + box.length);
  out.set(NACL_PREFIX, 0);
  out.set(nonce, NACL_PREFIX.length);
  out.set(box, NACL_PREFIX.length + nonce.length);
  return out;
}
