// SS58 addresses (Substrate's base58 with a blake2b checksum) written without @polkadot/util-crypto:
// the idle engine lists wallets and shows addresses, and loading polkadot-js for that alone would
// cost ~150 MB of resident memory (docs/performance.md). Signing, decoding and key derivation
// stay with polkadot-js, loaded when first used.
import { blake2b } from '@noble/hashes/blake2.js';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const CONTEXT = new TextEncoder().encode('SS58PRE');

function base58(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)]! + out;
    n /= 58n;
  }
  // Each leading zero byte is one leading '1'.
  for (let i = 0; i < bytes.length && bytes[i] === 0; i++) out = '1' + out;
  return out;
}

/** The SS58 address of a 32-byte public key; `prefix` is the network's simple format (0-63; 42 generic Substrate). */
export function encodeSs58(publicKey: Uint8Array, prefix = 42): string {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) throw new Error('an SS58 address needs a 32-byte public key');
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 63) throw new Error('only the simple SS58 formats 0-63 are supported');
  const body = new Uint8Array(33);
  body[0] = prefix;
  body.set(publicKey, 1);
  const preimage = new Uint8Array(CONTEXT.length + body.length);
  preimage.set(CONTEXT, 0);
  preimage.set(body, CONTEXT.length);
  const sum = blake2b(preimage, { dkLen: 64 });
  const full = new Uint8Array(35);
  full.set(body, 0);
  full.set(sum.subarray(0, 2), 33);
  return base58(full);
}

/** `0x` + 64 hex digits: a 32-byte key as btwallet writes it. */
export function isHex32(value: unknown): value is string {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value);
}

export function hexToBytes(hex: string): Uint8Array {
  const body = hex.startsWith('0x') ? hex.slice(2) : hex;
  if (body.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(body)) throw new Error('not a hex string');
  return new Uint8Array(Buffer.from(body, 'hex'));
}

export function bytesToHex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}
