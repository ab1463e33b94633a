// SS58 addresses (base58 of prefix ‖ public key ‖ blake2b-512("SS58PRE" ‖ prefix ‖ key)[0..2]) in plain
// JS, the one codec of both sides: the engine lists wallets with it while idle (loading polkadot-js for
// that alone costs ~150 MB, docs/performance.md), and for the browser bundles vite.config.ts points @polkadot/extension-dapp's `@polkadot/util-crypto`
// import here: the package would bring 225 kB of WebAssembly for these two functions, and WebAssembly
// needs 'wasm-unsafe-eval', which the signing page's CSP does not grant. The names and arguments follow
// util-crypto's; test/unit/renderer/ss58.test.ts proves the same output.
import { blake2b } from '@noble/hashes/blake2.js';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const PREFIX = new TextEncoder().encode('SS58PRE');
/** Account ids (32 bytes) and the short forms SS58 allows; 33/32-byte keys carry a 2-byte checksum. */
const KEY_LENGTHS = [1, 2, 4, 8, 32, 33];

function base58Encode(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

function base58Decode(text: string): Uint8Array {
  let n = 0n;
  for (const ch of text) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) throw new Error(`Decoding ${text}: invalid base58 character ${ch}`);
    n = n * 58n + BigInt(v);
  }
  const body: number[] = [];
  while (n > 0n) {
    body.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  let zeros = 0;
  while (text[zeros] === '1') zeros++;
  return new Uint8Array([...new Array<number>(zeros).fill(0), ...body]);
}

function hexToBytes(hex: string): Uint8Array {
  const h = hex.slice(2);
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) throw new Error(`Invalid hex ${hex}`);
  return new Uint8Array(h.match(/../g)?.map((x) => parseInt(x, 16)) ?? []);
}

function checksum(data: Uint8Array): Uint8Array {
  const input = new Uint8Array(PREFIX.length + data.length);
  input.set(PREFIX);
  input.set(data, PREFIX.length);
  return blake2b(input, { dkLen: 64 });
}

function prefixBytes(format: number): number[] {
  if (!Number.isInteger(format) || format < 0 || format > 16383 || format === 46 || format === 47) throw new Error('Out of range ss58Format specified');
  // Two-byte prefixes pack the 14-bit format with the 0b01 marker (the SS58 spec's layout).
  return format < 64 ? [format] : [((format & 0xfc) >> 2) | 0x40, (format >> 8) | ((format & 0x03) << 6)];
}

/** The public key (account id) inside an SS58 address; hex and raw keys pass through. */
export function decodeAddress(encoded: string | Uint8Array, ignoreChecksum = false, ss58Format = -1): Uint8Array {
  if (encoded instanceof Uint8Array) return encoded;
  if (typeof encoded !== 'string' || encoded.length === 0) throw new Error('Invalid empty address passed');
  if (encoded.startsWith('0x')) return hexToBytes(encoded);
  const bytes = base58Decode(encoded);
  if (bytes.length === 0) throw new Error(`Decoding ${encoded}: invalid address`);
  const prefixLen = bytes[0]! & 0x40 ? 2 : 1;
  const format = prefixLen === 1 ? bytes[0]! : ((bytes[0]! & 0x3f) << 2) | (bytes[1]! >> 6) | ((bytes[1]! & 0x3f) << 8);
  const keyLen = [34 + prefixLen, 35 + prefixLen].includes(bytes.length) ? bytes.length - prefixLen - 2 : bytes.length - prefixLen - 1;
  if (!KEY_LENGTHS.includes(keyLen)) throw new Error(`Decoding ${encoded}: invalid address length`);
  const hash = checksum(bytes.subarray(0, prefixLen + keyLen));
  const sumOk = bytes.subarray(prefixLen + keyLen).every((b, i) => b === hash[i]);
  if (!sumOk && !ignoreChecksum) throw new Error(`Decoding ${encoded}: invalid checksum`);
  if (ss58Format !== -1 && format !== ss58Format) throw new Error(`Decoding ${encoded}: expected ss58Format ${ss58Format}, received ${format}`);
  return bytes.slice(prefixLen, prefixLen + keyLen);
}

/** The SS58 form of a public key under `ss58Format` (42, the generic Substrate prefix, unless told). */
export function encodeAddress(key: string | Uint8Array, ss58Format = 42): string {
  const u8a = decodeAddress(key);
  if (!KEY_LENGTHS.includes(u8a.length)) throw new Error(`Expected a valid key to convert, with length ${KEY_LENGTHS.join(', ')}`);
  const input = new Uint8Array([...prefixBytes(ss58Format), ...u8a]);
  const sum = checksum(input).subarray(0, [32, 33].includes(u8a.length) ? 2 : 1);
  return base58Encode(new Uint8Array([...input, ...sum]));
}
