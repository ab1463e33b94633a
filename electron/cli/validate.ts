// `engy-panel validate`: the headless light validator (PROTOCOL 8). Flags or the upstream ENGY_SN53_*
// environment; exits non-zero with the reason on bad configuration; runs through chain and provider
// outages until SIGTERM/SIGINT, then stops cleanly and releases the data dir.
import { dirname } from 'node:path';
import { describeError } from '../engine/lib/fs-errors.ts';
import { resolveDaemonConfig, type DaemonFlags } from '../engine/validator/daemon-config.ts';
import { composeEngine } from '../compose.ts';
import { installProcessGuards } from '../process-guards.ts';
import { toDisposable } from '../engine/lib/disposable.ts';
import { defineCommand, parseCommand } from './args.ts';
import { cliCommand } from './run-command.ts';
import type { CliCommand } from './types.ts';

export const VALIDATE = defineCommand({
  usage: `usage: engy-panel validate --wallet NAME --hotkey NAME [--wallet-path DIR] [--chain finney|test|local|URL]
                          [--api URL --master SS58] [--netuid N] [--poll-s S] [--resubmit-blocks N] [--data-dir D]
                          [--state-file F]
       engy-panel validate --healthcheck [--data-dir D] [--state-file F]   (exit 0 while the loop's heartbeat is fresh)
The same settings are read from ENGY_SN53_WALLET, ENGY_SN53_WALLET_HOTKEY, ENGY_SN53_NETWORK, ENGY_SN53_API,
ENGY_SN53_MASTER_HOTKEY, ENGY_SN53_NETUID, ENGY_SN53_POLL_S, ENGY_SN53_RESUBMIT_BLOCKS, ENGY_SN53_STATE_FILE.
`,
  // Numbers stay text here: resolveDaemonConfig checks flags and environment with the same words.
  options: {
    wallet: { kind: 'string' },
    hotkey: { kind: 'string' },
    'wallet-path': { kind: 'string' },
    chain: { kind: 'string' },
    api: { kind: 'string' },
    master: { kind: 'string' },
    netuid: { kind: 'string' },
    'poll-s': { kind: 'string' },
    'resubmit-blocks': { kind: 'string' },
    'data-dir': { kind: 'string' },
    'state-file': { kind: 'string' },
  },
});

export const run: CliCommand = cliCommand('validate', async (args, io) => {
  // The watchdog probe has its own flags and never opens the data dir (a running validator holds its lock).
  if (args.includes('--healthcheck')) return (await import('./validate-healthcheck.ts')).run(args, io);
  const { values: v } = parseCommand(args, VALIDATE);
  const flags: DaemonFlags = {
    wallet: v.wallet,
    hotkey: v.hotkey,
    walletPath: v['wallet-path'],
    chain: v.chain,
    api: v.api,
    master: v.master,
    netuid: v.netuid,
    pollS: v['poll-s'],
    resubmitBlocks: v['resubmit-blocks'],
    dataDir: v['data-dir'],
    stateFile: v['state-file'],
  };
  const r = resolveDaemonConfig(flags, io.env);
  if (!r.ok) {
    io.stderr(`engy-panel validate: bad configuration\n${r.errors.map((e) => `  - ${e}\n`).join('')}\n${VALIDATE.usage}`);
    return 2;
  }
  const cfg = r.config;
  let engine;
  try {
    engine = await composeEngine({
      profile: 'validate',
      dataDir: cfg.dataDir,
      echo: (l) => io.stdout(`${l}\n`),
      runtime: { keepAlive: true, tempDirs: [dirname(cfg.statePath), dirname(cfg.heartbeatFile)] },
      validate: { config: cfg, env: io.env },
    });
  } catch (e) {
    io.stderr(`engy-panel validate: ${describeError(e)}\n`);
    return 1;
  }
  // A daemon left alone for weeks: a missed catch is logged, never the end of the process (electron/process-guards.ts).
  const built = engine;
  // Uninstalled with the engine, so an in-process caller (a test) gets its process back as it was.
  engine.runtime.add(toDisposable(installProcessGuards({ log: engine.logs.logger('process'), shutdown: () => built.dispose() })));
  try {
    return await engine.run(io.stopSignal);
  } finally {
    await engine.dispose().catch((e: unknown) => io.stderr(`engy-panel validate: cleanup: ${describeError(e)}\n`));
  }
});
