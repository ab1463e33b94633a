// SCALE WeightsTlockPayload, the plaintext of a commit-reveal v4 commit (subtensor; CHAIN.md 3.4):
//   { hotkey: Vec<u8> (the 32-byte public key), uids: Vec<u16>, values: Vec<u16>, version_key: u64 }
// Vec = compact length then elements, u16/u64 little-endian. Decoding is for the dev chain and for checks.

export interface WeightsTlockPayload {
  hotkey: Uint8Array;
  uids: number[];
  values: number[];
  versionKey: bigint;
}

export class PayloadFormatError extends Error {
  override name = 'PayloadFormatError';
}

const U64_MAX = (1n << 64n) - 1n;

function compact(n: number): number[] {
  if (n < 1 << 6) return [n << 2];
  if (n < 1 << 14) return [((n << 2) | 1) & 0xff, (n >> 6) & 0xff];
  if (n < 1 << 30) return [((n << 2) | 2) & 0xff, (n >> 6) & 0xff, (n >> 14) & 0xff, (n >> 22) & 0xff];
  throw new RangeError('vector too long for a weights payload');
}

const isU16 = (v: number) => Number.isInteger(v) && v >= 0 && v <= 0xffff;

export function encodeWeightsPayload(p: WeightsTlockPayload): Uint8Array {
  if (p.hotkey.length !== 32) throw new RangeError('the hotkey public key is 32 bytes');
  if (p.uids.length !== p.values.length) throw new RangeError('uids and values differ in length');
  if (!p.uids.every(isU16) || !p.values.every(isU16)) throw new RangeError('uids and values are whole numbers from 0 to 65535');
  if (p.versionKey < 0n || p.versionKey > U64_MAX) throw new RangeError('the version key is a u64');
  const out: number[] = [...compact(32), ...p.hotkey, ...compact(p.uids.length)];
  for (const u of p.uids) out.push(u & 0xff, u >> 8);
  out.push(...compact(p.values.length));
  for (const v of p.values) out.push(v & 0xff, v >> 8);
  let k = p.versionKey;
  for (let i = 0; i < 8; i++) {
    out.push(Number(k & 0xffn));
    k >>= 8n;
  }
  return new Uint8Array(out);
}

export function decodeWeightsPayload(bytes: Uint8Array): WeightsTlockPayload {
  let at = 0;
  const need = (n: number, what: string) => {
    if (bytes.length - at < n) throw new PayloadFormatError(`the weights payload is cut short in ${what}`);
  };
  const readCompact = (what: string): number => {
    need(1, what);
    const b0 = bytes[at] ?? 0;
    const mode = b0 & 3;
    if (mode === 0) {
      at += 1;
      return b0 >> 2;
    }
    if (mode === 1) {
      need(2, what);
      const v = (b0 | ((bytes[at + 1] ?? 0) << 8)) >> 2;
      at += 2;
      return v;
    }
    if (mode === 2) {
      need(4, what);
      const v = ((b0 | ((bytes[at + 1] ?? 0) << 8) | ((bytes[at + 2] ?? 0) << 16)) >>> 2) + (bytes[at + 3] ?? 0) * (1 << 22);
      at += 4;
      return v;
    }
    throw new PayloadFormatError(`${what}: length too large for a weights payload`);
  };
  const readU16s = (what: string): number[] => {
    const n = readCompact(`${what} length`);
    need(n * 2, what);
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((bytes[at + 2 * i] ?? 0) | ((bytes[at + 2 * i + 1] ?? 0) << 8));
    at += n * 2;
    return out;
  };
  const hkLen = readCompact('hotkey length');
  need(hkLen, 'hotkey');
  const hotkey = bytes.slice(at, at + hkLen);
  at += hkLen;
  const uids = readU16s('uids');
  const values = readU16s('values');
  need(8, 'version key');
  let versionKey = 0n;
  for (let i = 7; i >= 0; i--) versionKey = (versionKey << 8n) | BigInt(bytes[at + i] ?? 0);
  at += 8;
  if (at !== bytes.length) throw new PayloadFormatError(`the weights payload has ${bytes.length - at} trailing bytes`);
  if (uids.length !== values.length) throw new PayloadFormatError('uids and values differ in length');
  return { hotkey, uids, values, versionKey };
}
