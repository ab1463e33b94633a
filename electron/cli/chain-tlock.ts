// `engy-panel chain tlock encrypt|decrypt`: the commit-reveal timelock (tle layout subtensor decrypts) from a shell,
// for operators and external checks. Hex in on stdin, hex out on stdout; refusals are one sentence on stderr.
import { parseArgs } from 'node:util';
import { TlockDecryptError, tlockDecrypt, tlockEncrypt, verifyRoundSignature } from '../engine/chain/tlock/ibe.ts';
import { TleFormatError } from '../engine/chain/tlock/layout.ts';
import { QUICKNET } from '../engine/chain/tlock/quicknet.ts';
import type { CliCommand } from './types.ts';
import { readStdin } from './types.ts';

const USAGE = `usage: engy-panel chain tlock encrypt --round R [--public-key HEX] < plaintext.hex > ciphertext.hex
       engy-panel chain tlock decrypt --round R --signature HEX [--public-key HEX] < ciphertext.hex > plaintext.hex
Timelock encryption to a drand round (quicknet unless --public-key names another beacon's 96-byte G2 key), in the
byte layout subtensor's commit-reveal v4 decrypts. decrypt checks the signature is the beacon's for round R first.
Exit codes: 0 done, 1 the signature does not open the ciphertext, 2 bad usage or input.
`;

/** Hex on stdin is at most this long (a commit is at most 5000 bytes; plaintexts are smaller). */
const MAX_HEX_CHARS = 1 << 20;

class InputError extends Error {}

function hexArg(v: string | undefined, what: string, bytes?: number): Uint8Array {
  const s = (v ?? '').trim().replace(/^0x/i, '');
  if (s.length > MAX_HEX_CHARS) throw new InputError(`${what} is longer than ${MAX_HEX_CHARS / 2} bytes`);
  if (!/^([0-9a-fA-F]{2})*$/.test(s)) throw new InputError(`${what} must be hex (an even number of 0-9a-f digits)`);
  const b = new Uint8Array(Buffer.from(s, 'hex'));
  if (bytes !== undefined && b.length !== bytes) throw new InputError(`${what} must be ${bytes} bytes, got ${b.length}`);
  return b;
}

function roundArg(v: string | undefined): number {
  if (v === undefined) throw new InputError('--round is required');
  if (!/^[0-9]{1,16}$/.test(v) || Number(v) < 1 || !Number.isSafeInteger(Number(v))) throw new InputError(`--round must be a whole number from 1 up, got "${v}"`);
  return Number(v);
}

export const run: CliCommand = async (args, io) => {
  if (args[0] !== 'tlock' || (args[1] !== 'encrypt' && args[1] !== 'decrypt')) {
    const help = args.includes('--help') || args.length === 0;
    (help ? io.stdout : io.stderr)(USAGE);
    return help ? 0 : 2;
  }
  const op = args[1];
  let values;
  try {
    ({ values } = parseArgs({
      args: args.slice(2),
      strict: true,
      allowPositionals: false,
      options: { round: { type: 'string' }, signature: { type: 'string' }, 'public-key': { type: 'string' }, help: { type: 'boolean' } },
    }));
  } catch (e) {
    io.stderr(`engy-panel chain tlock: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  try {
    const round = roundArg(values.round);
    const publicKey = values['public-key'] === undefined ? undefined : hexArg(values['public-key'], '--public-key', 96);
    const input = hexArg(await readStdin(io.stdin), 'stdin');
    if (op === 'encrypt') {
      if (values.signature !== undefined) throw new InputError('encrypt takes no --signature');
      io.stdout(`${Buffer.from(tlockEncrypt(input, round, publicKey ? { publicKey } : {})).toString('hex')}\n`);
      return 0;
    }
    if (values.signature === undefined) throw new InputError("decrypt needs --signature HEX (the beacon's 48-byte signature of the round)");
    const signature = hexArg(values.signature, '--signature', 48);
    if (!verifyRoundSignature(round, signature, publicKey)) {
      io.stderr(
        `engy-panel chain tlock: the signature is not ${publicKey ? 'this beacon' : `drand quicknet (${QUICKNET.chainHash.slice(0, 8)}…)`}'s signature of round ${round}. Fetch the pulse of that round and try again.\n`,
      );
      return 1;
    }
    io.stdout(`${Buffer.from(tlockDecrypt(input, signature)).toString('hex')}\n`);
    return 0;
  } catch (e) {
    if (e instanceof TlockDecryptError) {
      io.stderr(`engy-panel chain tlock: the signature of round ${values.round} does not open this ciphertext: it was locked to another round or another beacon.\n`);
      return 1;
    }
    if (e instanceof InputError || e instanceof TleFormatError || e instanceof RangeError) {
      io.stderr(`engy-panel chain tlock: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
};
