// `engy-panel chain tlock encrypt|decrypt` in-process: hex in, hex out, a wrong signature exits 1 with a sentence,
// bad usage and hostile input exit 2 without a stack trace.
import { describe, expect, it } from 'vitest';
import { run } from '../../../../electron/cli/chain-tlock.ts';
import { recordingIo } from '../../../helpers/cli-io.ts';
import { readSharedJson, readSharedLines } from '../../../helpers/shared-vectors.ts';

const pulses = readSharedLines<{ round: number; signature: string }>('tlock', 'quicknet_pulses.jsonl');
const sig = (round: number) => pulses.find((p) => p.round === round)!.signature;
const rust = readSharedJson<{ round: number; ciphertext_hex: string; plaintext_utf8: string }[]>('tlock', 'text_vectors.json')[0]!;

async function cli(args: string[], stdin = '') {
  const io = recordingIo(stdin);
  const code = await run(args, io);
  return { code, out: io.out, err: io.err };
}

describe('engy-panel chain tlock', () => {
  it("encrypts stdin hex to a round and decrypts it back with the round's signature", async () => {
    const enc = await cli(['tlock', 'encrypt', '--round', '1002'], '0xdeadbeef\n');
    expect(enc.code, enc.err).toBe(0);
    expect(enc.out).toMatch(/^[0-9a-f]+\n$/);
    expect(enc.out.trim().length / 2).toBe(4 + 244);
    const dec = await cli(['tlock', 'decrypt', '--round', '1002', '--signature', sig(1002)], enc.out);
    expect(dec).toEqual({ code: 0, out: 'deadbeef\n', err: '' });
  });

  it('opens the Rust vector', async () => {
    const dec = await cli(['tlock', 'decrypt', '--round', String(rust.round), '--signature', `0x${sig(rust.round)}`], rust.ciphertext_hex);
    expect(Buffer.from(dec.out.trim(), 'hex').toString('utf8')).toBe(rust.plaintext_utf8);
  });

  it('a wrong signature exits 1 with a sentence', async () => {
    const otherRound = await cli(['tlock', 'decrypt', '--round', '1001', '--signature', sig(1001)], rust.ciphertext_hex);
    expect(otherRound.code).toBe(1);
    expect(otherRound.out).toBe('');
    expect(otherRound.err).toMatch(/does not open this ciphertext: it was locked to another round/);
    const mismatched = await cli(['tlock', 'decrypt', '--round', '1000', '--signature', sig(1001)], rust.ciphertext_hex);
    expect(mismatched.code).toBe(1);
    expect(mismatched.err).toMatch(/not drand quicknet .*signature of round 1000/);
  });

  it('bad usage and hostile input exit 2 with the reason', async () => {
    const cases: [string[], string, RegExp][] = [
      [['tlock', 'encrypt'], '00', /--round is required/],
      [['tlock', 'encrypt', '--round', '0'], '00', /from 1 up/],
      [['tlock', 'encrypt', '--round', '1e3'], '00', /whole number/],
      [['tlock', 'encrypt', '--round', '__proto__'], '00', /whole number/],
      [['tlock', 'encrypt', '--round', '5', '--bogus'], '00', /Unknown option/],
      [['tlock', 'encrypt', '--round', '5', 'extra'], '00', /positional/i],
      [['tlock', 'encrypt', '--round', '5'], 'xyz', /must be hex/],
      [['tlock', 'encrypt', '--round', '5'], 'abc', /must be hex/],
      [['tlock', 'encrypt', '--round', '5'], 'a'.repeat((1 << 20) + 2), /longer than/],
      [['tlock', 'decrypt', '--round', '5'], '00', /needs --signature/],
      [['tlock', 'decrypt', '--round', '1000', '--signature', 'abcd'], '00', /48 bytes/],
      [['tlock', 'decrypt', '--round', '1000', '--signature', sig(1000)], '00ff', /at least 244 bytes/],
      [['tlock', 'encrypt', '--round', '5', '--public-key', '00'], '00', /96 bytes/],
      [['tlock', 'encrypt', '--round', '5', '--public-key', '11'.repeat(96)], '00', /not a valid G2 point/],
      [['tlock', 'frobnicate'], '', /usage/],
    ];
    for (const [args, stdin, why] of cases) {
      const r = await cli(args, stdin);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(why);
      expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    }
  });
});
