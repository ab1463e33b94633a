// The btwallet keyfile: a JSON object written from a Rust HashMap (random key order, so always
// parse), optionally wrapped in an encryption envelope recognised by its first bytes.
import { bytesToHex, encodeSs58, hexToBytes, isHex32 } from '../chain/ss58.ts';
import type { KeyfileEncryption } from '../../../shared/wallet.ts';

export interface KeyfileData {
  accountId?: string;
  publicKey?: string;
  /** btwallet form: canonical scalar (32 LE) ‖ nonce (32), hex. */
  privateKey?: string;
  secretPhrase?: string;
  secretSeed?: string;
  ss58Address?: string;
}

const SS58_FORMAT = 42;
const textDecoder = new TextDecoder('utf-8', { fatal: false });

/** Prefix detection, in btwallet's order (keyfile.rs keyfile_data_is_encrypted_*). */
export function detectEncryption(data: Uint8Array): Exclude<KeyfileEncryption, 'missing'> {
  const head = textDecoder.decode(data.subarray(0, 16));
  if (head.startsWith('$NACL')) return 'nacl';
  if (head.startsWith('$ANSIBLE_VAULT')) return 'ansible-vault';
  if (head.startsWith('gAAAAA')) return 'fernet';
  const trimmed = head.trimStart();
  return trimmed.startsWith('{') ? 'none' : 'unreadable';
}

const FIELDS = ['accountId', 'publicKey', 'privateKey', 'secretPhrase', 'secretSeed', 'ss58Address'] as const;

/** Parses a plaintext keyfile; unknown fields are dropped, non-string or null fields ignored (btwallet writes null for absent ones). */
export function parseKeyfile(data: Uint8Array | string): KeyfileData {
  const text = typeof data === 'string' ? data : textDecoder.decode(data);
  const raw: unknown = JSON.parse(text);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('keyfile is not a JSON object');
  const out: KeyfileData = {};
  for (const f of FIELDS) {
    const v = (raw as Record<string, unknown>)[f];
    if (typeof v === 'string' && v.length > 0) out[f] = v;
  }
  return out;
}

/** The address a public-only or plaintext keyfile claims, preferring ss58Address, else derived from the public key. */
export function keyfileAddress(k: KeyfileData): string | null {
  if (k.ss58Address) return k.ss58Address;
  const pub = k.publicKey ?? k.accountId;
  if (isHex32(pub)) return encodeSs58(hexToBytes(pub), SS58_FORMAT);
  return null;
}

export interface KeypairMaterial {
  publicKey: Uint8Array;
  /** polkadot-js form (ed25519-style scalar·8 ‖ nonce); absent for public-only keyfiles. */
  secretKey?: Uint8Array;
  mnemonic?: string;
  seed?: Uint8Array;
}

/** What btwallet writes for a keypair (serialized_keypair_to_keyfile_data), with its private key converted to the canonical scalar. */
export function serializeKeyfile(m: KeypairMaterial): string {
  const pubHex = bytesToHex(m.publicKey);
  const out: Record<string, string> = { accountId: pubHex, publicKey: pubHex };
  if (m.secretKey) out.privateKey = bytesToHex(polkadotSecretToBtwallet(m.secretKey));
  if (m.mnemonic) out.secretPhrase = m.mnemonic;
  if (m.seed) out.secretSeed = bytesToHex(m.seed);
  out.ss58Address = encodeSs58(m.publicKey, SS58_FORMAT);
  return JSON.stringify(out);
}

/** Public-only companion (coldkeypub.txt, hotkeys/<h>pub.txt). */
export function serializePublicKeyfile(publicKey: Uint8Array): string {
  return serializeKeyfile({ publicKey });
}

const MASK_256 = (1n << 256n) - 1n;

function leToBig(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return v;
}

function bigToLe32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

/** @scure/sr25519 keeps the scalar multiplied by 8 (ed25519 layout); schnorrkel's to_bytes stores it divided back (CHAIN.md 1.4). */
export function polkadotSecretToBtwallet(sk: Uint8Array): Uint8Array {
  if (sk.length !== 64) throw new Error('sr25519 secret key must be 64 bytes');
  const out = new Uint8Array(64);
  out.set(bigToLe32(leToBig(sk.subarray(0, 32)) >> 3n), 0);
  out.set(sk.subarray(32, 64), 32);
  return out;
}

export function btwalletPrivateToPolkadot(pk: Uint8Array): Uint8Array {
  if (pk.length !== 64) throw new Error('btwallet privateKey must be 64 bytes');
  const out = new Uint8Array(64);
  out.set(bigToLe32((leToBig(pk.subarray(0, 32)) << 3n) & MASK_256), 0);
  out.set(pk.subarray(32, 64), 32);
  return out;
}
