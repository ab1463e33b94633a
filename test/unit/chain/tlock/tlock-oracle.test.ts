// Our timelock ciphertexts against the Rust tle code itself (npm @ideallabs/timelock_wasm_wrapper@0.2.0-dev, the
// layout subtensor decrypts, compiled to WASM; a dev dependency used only here): each side opens the other's.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { initSync, tld, tle } from '@ideallabs/timelock_wasm_wrapper';
import { beforeAll, describe, expect, it } from 'vitest';
import { tlockDecrypt, tlockEncrypt } from '../../../../electron/engine/chain/tlock/ibe.ts';
import { QUICKNET_PUBLIC_KEY, roundIdentity } from '../../../../electron/engine/chain/tlock/quicknet.ts';
import { encodeWeightsPayload } from '../../../../electron/engine/chain/tlock/weights-payload.ts';
import { readSharedLines } from '../../../helpers/shared-vectors.ts';

const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));
const pulses = readSharedLines<{ round: number; signature: string }>('tlock', 'quicknet_pulses.jsonl');
const sigOf = (round: number) => hex(pulses.find((p) => p.round === round)?.signature ?? '');
const CURVE = 'bls12_381';

beforeAll(() => {
  const wasm = createRequire(import.meta.url).resolve('@ideallabs/timelock_wasm_wrapper/timelock_wasm_wrapper_bg.wasm');
  initSync({ module: readFileSync(wasm) });
});

function payload(n: number): Uint8Array {
  const uids = Array.from({ length: n }, (_, i) => i * 3);
  return encodeWeightsPayload({ hotkey: new Uint8Array(32).fill(0x42), uids, values: uids.map((u) => 65535 - u), versionKey: 4n });
}

describe('interop with the Rust tle (WASM oracle)', () => {
  it("the Rust code decrypts our ciphertexts, and refuses them with another round's pulse", () => {
    for (const [round, n] of [
      [1000, 3],
      [1002, 256],
      [2000, 0],
    ] as const) {
      const p = payload(n);
      const ct = tlockEncrypt(p, round);
      expect(new Uint8Array(tld(ct, sigOf(round), CURVE) as Uint8Array)).toEqual(p);
      expect(() => tld(ct, sigOf(round === 1000 ? 1001 : 1000), CURVE)).toThrow(/InvalidSignature/);
    }
  });

  it("we decrypt the Rust code's ciphertexts", () => {
    for (const [round, n] of [
      [1001, 5],
      [1003, 200],
    ] as const) {
      const p = payload(n);
      const ct = new Uint8Array(tle(roundIdentity(round), p, new Uint8Array(32).fill(round % 251), QUICKNET_PUBLIC_KEY, CURVE) as Uint8Array);
      expect(ct.length).toBe(p.length + 244);
      expect(tlockDecrypt(ct, sigOf(round))).toEqual(p);
    }
  });
});
