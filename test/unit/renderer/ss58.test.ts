// The browser bundles' SS58 codec (shared/ss58.ts, what @polkadot/extension-dapp gets instead
// of @polkadot/util-crypto) against util-crypto itself: same addresses, same keys, same refusals.
import { describe, expect, it } from 'vitest';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import { decodeAddress, encodeAddress } from '../../../shared/ss58.ts';

const { decodeAddress: refDecode, encodeAddress: refEncode } = polkadot('@polkadot/util-crypto');

/** Deterministic pseudo-random keys: the test needs no RNG to be reproducible. */
function key(seed: number, length = 32): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed * 2654435761;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe('SS58 codec for the browser', () => {
  it('encodes and decodes exactly as @polkadot/util-crypto, for one- and two-byte prefixes', () => {
    const keys = [new Uint8Array(32), new Uint8Array(32).fill(255), ...Array.from({ length: 40 }, (_, i) => key(i + 1))];
    for (const format of [0, 1, 2, 42, 63, 64, 65, 255, 1000, 16383]) {
      for (const k of keys) {
        const ours = encodeAddress(k, format);
        expect(ours, `format ${format}`).toBe(refEncode(k, format));
        expect(decodeAddress(ours)).toEqual(refDecode(ours));
        expect(decodeAddress(ours, false, format)).toEqual(k);
      }
    }
    expect(encodeAddress(key(7))).toBe(refEncode(key(7)));
    // An address re-encoded under another prefix, as extension-dapp does for every account it lists.
    const polkadot = refEncode(key(9), 0);
    expect(encodeAddress(decodeAddress(polkadot), 42)).toBe(refEncode(key(9), 42));
    // Short account ids (1-byte checksum) and 33-byte keys.
    for (const len of [1, 2, 4, 8, 33]) expect(encodeAddress(key(3, len), 42), `length ${len}`).toBe(refEncode(key(3, len), 42));
    const hex = `0x${Buffer.from(key(5)).toString('hex')}`;
    expect(decodeAddress(hex)).toEqual(key(5));
    expect(encodeAddress(hex, 42)).toBe(refEncode(hex, 42));
  });

  it('refuses what util-crypto refuses: bad checksum, bad characters, bad lengths, bad prefixes, wrong types', () => {
    const good = refEncode(key(11), 42);
    const flipped = good.slice(0, -1) + (good.endsWith('a') ? 'b' : 'a');
    const hostile: unknown[] = [flipped, '', '0OIl', `${good}0`, good.slice(0, 20), 'x'.repeat(5000), '0x123', '0xzz', null, 42, { __proto__: { address: good } }, ['5']];
    for (const h of hostile) {
      expect(() => refDecode(h as string), String(h)).toThrow();
      expect(() => decodeAddress(h as string), String(h)).toThrow();
    }
    expect(() => decodeAddress(good, false, 0)).toThrow(/ss58Format/);
    for (const bad of [-1, 46, 47, 16384, 1.5]) expect(() => encodeAddress(key(1), bad), String(bad)).toThrow(/ss58Format/);
    expect(() => encodeAddress(new Uint8Array(31))).toThrow(/valid key/);
  });
});
