// `engy-panel validator check-payload [--master SS58] [--netuid N]`: verify an epoch payload read from
// stdin exactly as the validator loop would, and print the verdict as one JSON line.
import { decodeAddress } from '@polkadot/util-crypto';
import { DEFAULT_NETUID, PINNED_MASTER_HOTKEY } from '../engine/validator/constants.ts';
import { verifyPayload } from '../engine/validator/payload-verify.ts';
import { existsSync } from 'node:fs';
import type { SubmissionRecord, TickRecord } from '../../shared/validator.ts';
import { dataPaths, defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { Database } from '../engine/store/database.ts';
import { defaultStatePath } from '../engine/validator/daemon-config.ts';
import { SqliteValidatorHistory } from '../engine/validator/history.ts';
import { readState } from '../engine/validator/state-file.ts';
import { flagString, parseArgs, type ParsedArgs } from './args.ts';
import { readStdin, type CliCommand, type CliIo } from './types.ts';

const USAGE = `usage: engy-panel validator check-payload [--master SS58] [--netuid N] < payload.json
       engy-panel validator status [--data-dir D] [--state-file F] [--limit N]
`;

/** What the headless validator last did, as one JSON document: the state file and the recent history. */
function status(p: ParsedArgs, io: CliIo): number {
  const dataDir = flagString(p, 'data-dir') ?? (io.env.ENGY_PANEL_DATA_DIR || defaultHeadlessDataDir(io.env));
  const statePath = flagString(p, 'state-file') ?? (io.env.ENGY_SN53_STATE_FILE || defaultStatePath(dataDir));
  const limit = Number(flagString(p, 'limit') ?? 10);
  const { state, dropped } = readState(statePath);
  const dbPath = dataPaths(dataDir).database;
  let ticks: TickRecord[] = [];
  let submissions: SubmissionRecord[] = [];
  if (existsSync(dbPath)) {
    const db = new Database(dbPath);
    try {
      const h = new SqliteValidatorHistory(db);
      ticks = h.recentTicks(Number.isInteger(limit) && limit > 0 ? limit : 10);
      submissions = h.recentSubmissions(Number.isInteger(limit) && limit > 0 ? limit : 10);
    } finally {
      db.close();
    }
  }
  io.stdout(`${JSON.stringify({ state_file: statePath, state, unreadable_fields: dropped, recent_ticks: ticks, recent_submissions: submissions }, null, 2)}\n`);
  return 0;
}

export const run: CliCommand = async (args, io) => {
  const p = parseArgs(args);
  if (p.positionals[0] === 'status') return status(p, io);
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
