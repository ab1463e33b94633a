// Timelock encryption against the brief's vectors (shared/vectors/tlock): ciphertexts made by the Rust tle code
// subtensor decrypts, real drand quicknet pulses, and a real finney commit for the layout.
import { describe, expect, it } from 'vitest';
import { tlockDecrypt, tlockEncrypt, TlockDecryptError, verifyRoundSignature } from '../../../../electron/engine/chain/tlock/ibe.ts';
import { OVERHEAD_BYTES, parseTle, serializeTle, TleFormatError } from '../../../../electron/engine/chain/tlock/layout.ts';
import { roundAt, roundIdentity, roundTimeS } from '../../../../electron/engine/chain/tlock/quicknet.ts';
import { decodeWeightsPayload, encodeWeightsPayload } from '../../../../electron/engine/chain/tlock/weights-payload.ts';
import { readSharedBytes, readSharedJson, readSharedLines } from '../../../helpers/shared-vectors.ts';

interface Pulse {
  round: number;
  signature: string;
}
interface TextVector {
  round: number;
  signature: string;
  plaintext_utf8: string;
  ciphertext_hex: string;
  ciphertext_len: number;
}
interface PayloadVector {
  round: number;
  signature: string;
  payload_struct: { hotkey_hex: string; uids: number[]; values: number[]; version_key: string };
  plaintext_scale_hex: string;
  ciphertext_hex: string;
}

const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));
const pulses = readSharedLines<Pulse>('tlock', 'quicknet_pulses.jsonl');
const sigOf = (round: number) => hex(pulses.find((p) => p.round === round)?.signature ?? '');
const textVectors = readSharedJson<TextVector[]>('tlock', 'text_vectors.json');
const payloadVector = readSharedJson<PayloadVector>('tlock', 'weights_payload_round1000.json');

describe('tlock against the Rust vectors', () => {
  it("every pulse is quicknet's signature of its round, and of no other", () => {
    expect(pulses.length).toBeGreaterThanOrEqual(5);
    for (const p of pulses) expect(verifyRoundSignature(p.round, hex(p.signature))).toBe(true);
    expect(verifyRoundSignature(1001, sigOf(1000))).toBe(false);
  });

  it('decrypts every Rust ciphertext with the pulse of its round', () => {
    for (const v of textVectors) {
      const ct = hex(v.ciphertext_hex);
      expect(ct.length).toBe(v.ciphertext_len);
      expect(Buffer.from(tlockDecrypt(ct, sigOf(v.round))).toString('utf8')).toBe(v.plaintext_utf8);
    }
    expect(Buffer.from(tlockDecrypt(hex(payloadVector.ciphertext_hex), sigOf(payloadVector.round))).toString('hex')).toBe(payloadVector.plaintext_scale_hex);
  });

  it('refuses a signature of another round with a sentence', () => {
    const v = textVectors.find((x) => x.round === 1000)!;
    for (const wrong of [1001, 2000]) {
      expect(() => tlockDecrypt(hex(v.ciphertext_hex), sigOf(wrong))).toThrow(TlockDecryptError);
      expect(() => tlockDecrypt(hex(v.ciphertext_hex), sigOf(wrong))).toThrow(/does not open this ciphertext/);
    }
  });

  it('builds the same SCALE WeightsTlockPayload as the vector, and reads it back', () => {
    const p = payloadVector.payload_struct;
    const bytes = encodeWeightsPayload({ hotkey: hex(p.hotkey_hex), uids: p.uids, values: p.values, versionKey: BigInt(p.version_key) });
    expect(Buffer.from(bytes).toString('hex')).toBe(payloadVector.plaintext_scale_hex);
    expect(decodeWeightsPayload(bytes)).toEqual({ hotkey: hex(p.hotkey_hex), uids: p.uids, values: p.values, versionKey: BigInt(p.version_key) });
  });

  it('parses the real finney commit into the u64-prefixed layout (303 bytes = 59-byte payload + 244)', () => {
    const commit = readSharedBytes('tlock', 'finney_commit_reveal_round_32340463.bin');
    expect(commit.length).toBe(303);
    const parts = parseTle(commit);
    expect(parts.u.length).toBe(96);
    expect(parts.u[0]! & 0x80).toBe(0x80); // compressed G2
    expect([parts.v.length, parts.w.length, parts.nonce.length]).toEqual([32, 32, 12]);
    expect(parts.sealed.length - 16).toBe(303 - OVERHEAD_BYTES);
    expect(serializeTle(parts)).toEqual(commit);
    // The newer tle layout (no prefixes on V and W) is not what the chain decrypts: refused, not misread.
    const newer = new Uint8Array([...commit.subarray(0, 96), ...commit.subarray(104, 136), ...commit.subarray(144)]);
    expect(() => parseTle(newer)).toThrow(TleFormatError);
  });

  it('round arithmetic: identity is SHA-256 of the u64 BE round; rounds follow genesis and the 3 s period', () => {
    expect(Buffer.from(roundIdentity(1000)).toString('hex')).toHaveLength(64);
    expect(roundAt(1692803367 + 3 * 1000)).toBe(1000);
    expect(roundTimeS(1)).toBe(1692803367);
    expect(roundAt(0)).toBe(1);
    expect(() => roundIdentity(0)).toThrow(RangeError);
    expect(() => roundIdentity(1.5)).toThrow(RangeError);
  });
});

describe('tlock round trips', () => {
  it('encrypts then decrypts at every payload size the validator can produce (0 to 256 uids)', () => {
    const sig = sigOf(1000);
    for (const n of [0, 1, 2, 3, 17, 64, 128, 255, 256]) {
      const uids = Array.from({ length: n }, (_, i) => i);
      const values = uids.map((u) => (u * 257) % 65536);
      const payload = encodeWeightsPayload({ hotkey: new Uint8Array(32).fill(7), uids, values, versionKey: 10002000n });
      const ct = tlockEncrypt(payload, 1000);
      expect(ct.length).toBe(payload.length + OVERHEAD_BYTES);
      expect(ct.length).toBeLessThanOrEqual(5000);
      expect(tlockDecrypt(ct, sig)).toEqual(payload);
    }
  }, 60_000);

  it('is deterministic given the key, nonce and scalar, and random otherwise', () => {
    const opts = { esk: new Uint8Array(32).fill(2), nonce: new Uint8Array(12).fill(9), t: 12345n };
    const a = tlockEncrypt(new Uint8Array([1, 2, 3]), 1000, opts);
    expect(tlockEncrypt(new Uint8Array([1, 2, 3]), 1000, opts)).toEqual(a);
    expect(tlockEncrypt(new Uint8Array([1, 2, 3]), 1000)).not.toEqual(a);
  });
});

describe('tlock hostile input', () => {
  const good = hex(textVectors[0]!.ciphertext_hex);
  const sig = sigOf(textVectors[0]!.round);

  it('refuses truncated, padded, oversized-length and wrong-suite ciphertexts without reading out of bounds', () => {
    expect(() => tlockDecrypt(new Uint8Array(0), sig)).toThrow(TleFormatError);
    expect(() => tlockDecrypt(good.subarray(0, good.length - 1), sig)).toThrow(TleFormatError);
    expect(() => tlockDecrypt(new Uint8Array([...good, 0]), sig)).toThrow(/trailing/);
    const huge = good.slice();
    new DataView(huge.buffer).setBigUint64(96 + 80, 0xffffffffffffffffn, true); // body length
    expect(() => tlockDecrypt(huge, sig)).toThrow(TleFormatError);
    const suite = good.slice();
    suite[suite.length - 1] = 0x41;
    expect(() => tlockDecrypt(suite, sig)).toThrow(/cipher suite/);
  });

  it('refuses a bad U point, a bad signature and a tampered body', () => {
    const badU = good.slice();
    badU[5] = badU[5]! ^ 0xff;
    expect(() => tlockDecrypt(badU, sig)).toThrow(TlockDecryptError);
    expect(() => tlockDecrypt(good, new Uint8Array(48))).toThrow(TlockDecryptError);
    expect(() => tlockDecrypt(good, sig.subarray(0, 47))).toThrow(/48 bytes/);
    const body = good.slice();
    body[good.length - 40] = body[good.length - 40]! ^ 1; // inside the AES ciphertext/tag
    expect(() => tlockDecrypt(body, sig)).toThrow(TlockDecryptError);
  });

  it('refuses malformed weight payloads', () => {
    const ok = encodeWeightsPayload({ hotkey: new Uint8Array(32), uids: [1], values: [2], versionKey: 0n });
    expect(() => decodeWeightsPayload(ok.subarray(0, ok.length - 1))).toThrow(/cut short/);
    expect(() => decodeWeightsPayload(new Uint8Array([...ok, 0]))).toThrow(/trailing/);
    expect(() => decodeWeightsPayload(new Uint8Array([0xff, 0xff, 0xff, 0xff]))).toThrow();
    expect(() => encodeWeightsPayload({ hotkey: new Uint8Array(31), uids: [], values: [], versionKey: 0n })).toThrow(RangeError);
    expect(() => encodeWeightsPayload({ hotkey: new Uint8Array(32), uids: [70000], values: [1], versionKey: 0n })).toThrow(RangeError);
    expect(() => encodeWeightsPayload({ hotkey: new Uint8Array(32), uids: [1, 2], values: [1], versionKey: 0n })).toThrow(RangeError);
    expect(() => encodeWeightsPayload({ hotkey: new Uint8Array(32), uids: [], values: [], versionKey: -1n })).toThrow(RangeError);
  });
});
