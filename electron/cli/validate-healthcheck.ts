// `engy-panel validate --healthcheck [--data-dir D] [--state-file F] [--heartbeat-file H] [--poll-s S]`:
// exit 0 while the headless validator's loop is ticking, 1 with the reason otherwise (Docker
// HEALTHCHECK, systemd watchdogs). Reads the same settings and environment as `validate`.
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { DEFAULT_POLL_S } from '../engine/validator/constants.ts';
import { defaultStatePath } from '../engine/validator/daemon-config.ts';
import { checkHeartbeat } from '../engine/validator/healthcheck.ts';
import type { CliCommand } from './types.ts';

export const run: CliCommand = async (args, io) => {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        healthcheck: { type: 'boolean' },
        'data-dir': { type: 'string' },
        'state-file': { type: 'string' },
        'heartbeat-file': { type: 'string' },
        'poll-s': { type: 'string' },
        // The daemon's other settings are accepted, so the same command line works with the flag added.
        wallet: { type: 'string' },
        hotkey: { type: 'string' },
        'wallet-path': { type: 'string' },
        chain: { type: 'string' },
        api: { type: 'string' },
        master: { type: 'string' },
        netuid: { type: 'string' },
        'resubmit-blocks': { type: 'string' },
      },
    }));
  } catch (e) {
    io.stderr(`engy-panel validate --healthcheck: ${(e as Error).message}\n`);
    return 2;
  }
  const env = io.env;
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const nonEmpty = (v: string | undefined) => (v !== undefined && v.length > 0 ? v : undefined);
  const pollRaw = str('poll-s') ?? nonEmpty(env.ENGY_SN53_POLL_S);
  const pollS = pollRaw === undefined ? DEFAULT_POLL_S : Number(pollRaw);
  if (!Number.isInteger(pollS) || pollS < 1 || pollS > 86_400) {
    io.stderr(`engy-panel validate --healthcheck: poll seconds must be a whole number from 1 to 86400, got "${pollRaw}"\n`);
    return 2;
  }
  const dataDir = str('data-dir') ?? nonEmpty(env.ENGY_PANEL_DATA_DIR) ?? defaultHeadlessDataDir(env);
  const statePath = str('state-file') ?? nonEmpty(env.ENGY_SN53_STATE_FILE) ?? defaultStatePath(dataDir);
  const heartbeat = str('heartbeat-file') ?? nonEmpty(env.ENGY_SN53_HEARTBEAT_FILE) ?? join(dirname(statePath), 'heartbeat.json');
  const v = checkHeartbeat(heartbeat, pollS, Date.now());
  if (v.ok) {
    io.stdout(`${v.text}\n`);
    return 0;
  }
  io.stderr(`${v.text}\n`);
  return 1;
};
