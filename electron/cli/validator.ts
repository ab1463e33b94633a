// `engy-panel validator check-payload [--master SS58] [--netuid N]`: verify an epoch payload read from
// stdin exactly as the validator loop would, and print the verdict as one JSON line.
import { polkadot } from '../engine/lib/polkadot.ts';
import { PINNED_MASTER_HOTKEY, SUBNET_NETUID } from '../../shared/network.ts';
import { verifyPayload } from '../engine/validator/payload-verify.ts';
import { existsSync } from 'node:fs';
import type { SubmissionRecord, TickRecord } from '../../shared/validator.ts';
import { dataPaths, defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { Database } from '../engine/store/database.ts';
import { defaultStatePath } from '../engine/validator/daemon-config.ts';
import { SqliteValidatorHistory } from '../engine/validator/history.ts';
import { readState } from '../engine/validator/state-file.ts';
import { defineCommand, parseCommand, pickSubcommand } from './args.ts';
import { cliCommand } from './run-command.ts';
import { readStdin, type CliCommand, type CliIo } from './types.ts';

const { decodeAddress } = polkadot('@polkadot/util-crypto');

const USAGE = `usage: engy-panel validator check-payload [--master SS58] [--netuid N] < payload.json
       engy-panel validator status [--data-dir D] [--state-file F] [--limit N]
`;

const CHECK = defineCommand({ usage: USAGE, options: { master: { kind: 'string' }, netuid: { kind: 'int', min: 0, max: 65535 } } });
const STATUS = defineCommand({ usage: USAGE, options: { 'data-dir': { kind: 'string' }, 'state-file': { kind: 'string' }, limit: { kind: 'int', min: 1, max: 10_000 } } });

/** What the headless validator last did, as one JSON document: the state file and the recent history. */
function status(args: string[], io: CliIo): number {
  const { values: v } = parseCommand(args, STATUS);
  const dataDir = v['data-dir'] ?? (io.env.ENGY_PANEL_DATA_DIR || defaultHeadlessDataDir(io.env));
  const statePath = v['state-file'] ?? (io.env.ENGY_SN53_STATE_FILE || defaultStatePath(dataDir));
  const limit = v.limit ?? 10;
  const { state, dropped } = readState(statePath);
  const dbPath = dataPaths(dataDir).database;
  let ticks: TickRecord[] = [];
  let submissions: SubmissionRecord[] = [];
  if (existsSync(dbPath)) {
    const db = new Database(dbPath);
    try {
      const h = new SqliteValidatorHistory(db);
      ticks = h.recentTicks(limit);
      submissions = h.recentSubmissions(limit);
    } finally {
      db.close();
    }
  }
  io.stdout(`${JSON.stringify({ state_file: statePath, state, unreadable_fields: dropped, recent_ticks: ticks, recent_submissions: submissions }, null, 2)}\n`);
  return 0;
}

/** Plain words for a payload that cannot be parsed at all (the verifier explains the rest). */
const MALFORMED = 'stdin is not JSON: give the epoch payload exactly as the provider served it';

export const run: CliCommand = cliCommand('validator', async (args, io) => {
  const { sub, rest } = pickSubcommand(args, ['check-payload', 'status'] as const, USAGE);
  if (sub === 'status') return status(rest, io);
  const { values: v } = parseCommand(rest, CHECK);
  const master = v.master ?? PINNED_MASTER_HOTKEY;
  const netuid = v.netuid ?? SUBNET_NETUID;
  try {
    decodeAddress(master);
  } catch {
    io.stderr(`engy-panel validator: --master must be an SS58 address, got "${master}"\n\n${USAGE}`);
    return 2;
  }
  const text = await readStdin(io.stdin);
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = undefined;
  }
  const v2 = payload === undefined ? null : verifyPayload(payload, { masterHotkey: master, netuid });
  // The reason code for scripts, and beside it the sentence for the operator reading the terminal.
  const line = v2?.ok
    ? { ok: true, reason: null, explanation: null, epoch_index: v2.epochIndex, weights: v2.weights }
    : { ok: false, reason: v2 ? v2.reason : 'malformed', explanation: v2 ? v2.detail : MALFORMED, epoch_index: v2 ? v2.epochIndex : null, weights: null };
  io.stdout(`${JSON.stringify(line)}\n`);
  return line.ok ? 0 : 1;
});
