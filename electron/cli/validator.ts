// `engy-panel validator check-payload [--master SS58] [--netuid N]`: verify an epoch payload read from
// stdin exactly as the validator loop would, and print the verdict as one JSON line.
import { decodeAddress } from '@polkadot/util-crypto';
import { DEFAULT_NETUID, PINNED_MASTER_HOTKEY } from '../engine/validator/constants.ts';
import { verifyPayload } from '../engine/validator/payload-verify.ts';
import { flagString, parseArgs } from './args.ts';
import { readStdin, type CliCommand } from './types.ts';

const USAGE = 'usage: engy-panel validator check-payload [--master SS58] [--netuid N] < payload.json\n';

export const run: CliCommand = async (args, io) => {
  const p = parseArgs(args);
  if (p.positionals[0] !== 'check-payload') {
    io.stderr(USAGE);
    return 2;
  }
  const master = flagString(p, 'master') ?? PINNED_MASTER_HOTKEY;
  const netuidRaw = flagString(p, 'netuid');
  const netuid = netuidRaw === undefined ? DEFAULT_NETUID : Number(netuidRaw);
  if (!Number.isInteger(netuid) || netuid < 0 || netuid > 65535) {
    io.stderr(`engy-panel validator: --netuid must be a whole number from 0 to 65535, got "${netuidRaw}"\n`);
    return 2;
  }
  try {
    decodeAddress(master);
  } catch {
    io.stderr(`engy-panel validator: --master must be an SS58 address, got "${master}"\n`);
    return 2;
  }
  const text = await readStdin(io.stdin);
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = undefined;
  }
  const v = payload === undefined ? null : verifyPayload(payload, { masterHotkey: master, netuid });
  const line = v?.ok
    ? { ok: true, reason: null, epoch_index: v.epochIndex, weights: v.weights }
    : { ok: false, reason: v ? v.reason : 'malformed', epoch_index: v ? v.epochIndex : null, weights: null };
  io.stdout(`${JSON.stringify(line)}\n`);
  return line.ok ? 0 : 1;
};
