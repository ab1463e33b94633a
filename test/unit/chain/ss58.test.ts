import { randomBytes } from 'node:crypto';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import { describe, expect, it } from 'vitest';
import { bytesToHex, encodeSs58, hexToBytes, isHex32 } from '../../../electron/engine/chain/ss58.ts';

const { encodeAddress } = polkadot('@polkadot/util-crypto');

describe('SS58 without polkadot-js', () => {
  it('encodes exactly as @polkadot/util-crypto for random keys, zero-led keys and every simple prefix', () => {
    const keys = [new Uint8Array(32), new Uint8Array(32).fill(255), ...Array.from({ length: 40 }, () => new Uint8Array(randomBytes(32)))];
    keys[2]![0] = 0;
    for (const k of keys) {
      expect(encodeSs58(k)).toBe(encodeAddress(k, 42));
      for (const prefix of [0, 1, 2, 42, 63]) expect(encodeSs58(k, prefix)).toBe(encodeAddress(k, prefix));
    }
  });

  it('gives the well-known Alice address for her public key', () => {
    expect(encodeSs58(hexToBytes('0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d'))).toBe('5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY');
  });

  it('refuses hostile input instead of encoding garbage', () => {
    expect(() => encodeSs58(new Uint8Array(31))).toThrow(/32-byte/);
    expect(() => encodeSs58(new Uint8Array(33))).toThrow(/32-byte/);
    expect(() => encodeSs58('0x00' as unknown as Uint8Array)).toThrow(/32-byte/);
    expect(() => encodeSs58(new Uint8Array(32), 64)).toThrow(/0-63/);
    expect(() => encodeSs58(new Uint8Array(32), -1)).toThrow(/0-63/);
    expect(() => encodeSs58(new Uint8Array(32), 1.5)).toThrow(/0-63/);
    expect(() => hexToBytes('0x0')).toThrow(/hex/);
    expect(() => hexToBytes('0xzz')).toThrow(/hex/);
    for (const bad of ['', '0x', `0x${'a'.repeat(63)}`, `0x${'a'.repeat(65)}`, `0x${'g'.repeat(64)}`, 'a'.repeat(66), null, 42, { __proto__: null }, ['0x' + 'a'.repeat(64)]]) {
      expect(isHex32(bad)).toBe(false);
    }
    expect(isHex32(`0x${'aB'.repeat(32)}`)).toBe(true);
  });

  it('round-trips hex the way btwallet writes it', () => {
    const k = new Uint8Array(randomBytes(64));
    expect(hexToBytes(bytesToHex(k))).toEqual(k);
    expect(bytesToHex(new Uint8Array([0, 1, 254]))).toBe('0x0001fe');
    expect(bytesToHex(k.subarray(10, 12))).toBe(`0x${Buffer.from(k.subarray(10, 12)).toString('hex')}`);
  });
});
