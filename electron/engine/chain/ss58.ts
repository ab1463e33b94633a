// The engine's use of the one SS58 codec (shared/ss58.ts): the checks btwallet's 32-byte keys need, and
// the hex helpers of key files. Signing and key derivation stay with polkadot-js, loaded when first used.
import { encodeAddress } from '../../../shared/ss58.ts';

/** The SS58 address of a 32-byte public key; `prefix` is the network's simple format (0-63; 42 generic Substrate). */
export function encodeSs58(publicKey: Uint8Array, prefix = 42): string {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) throw new Error('an SS58 address needs a 32-byte public key');
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 63) throw new Error('only the simple SS58 formats 0-63 are supported');
  return encodeAddress(publicKey, prefix);
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
