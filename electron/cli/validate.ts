// `engy-panel validate`: the headless light validator (PROTOCOL 8). Flags or the upstream ENGY_SN53_*
// environment; exits non-zero with the reason on bad configuration; SIGTERM stops it cleanly.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainPort } from '../engine/chain/ports.ts';
import { LogHub, type Logger } from '../engine/lib/logger.ts';
import { dataPaths } from '../engine/lib/paths.ts';
import { resolveDaemonConfig, type DaemonFlags } from '../engine/validator/daemon-config.ts';
import { runValidatorDaemon } from '../engine/validator/daemon.ts';
import { flagString, parseArgs } from './args.ts';
import type { CliCommand } from './types.ts';

const USAGE = `usage: engy-panel validate --wallet NAME --hotkey NAME [--wallet-path DIR] [--chain finney|test|local|URL]
                          [--api URL --master SS58] [--netuid N] [--poll-s S] [--resubmit-blocks N] [--data-dir D]
The same settings are read from ENGY_SN53_WALLET, ENGY_SN53_WALLET_HOTKEY, ENGY_SN53_NETWORK, ENGY_SN53_API,
ENGY_SN53_MASTER_HOTKEY, ENGY_SN53_NETUID, ENGY_SN53_POLL_S, ENGY_SN53_RESUBMIT_BLOCKS, ENGY_SN53_STATE_FILE.
`;

/** The @polkadot/api client, imported only when the daemon really starts (the CLI's other commands never pay for it). */
async function polkadotChain(url: string, logger: Logger): Promise<ChainPort> {
  const { PolkadotChainClient } = await import('../engine/chain/polkadot-chain-client.ts');
  return PolkadotChainClient.connect({ endpoint: url, logger });
}

function panelVersion(): string {
  try {
    return `engy-panel ${(JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version}`;
  } catch {
    return 'engy-panel unknown';
  }
}

export const run: CliCommand = async (args, io) => {
  if (args.includes('--healthcheck')) return (await import('./validate-healthcheck.ts')).run(args, io);
  const p = parseArgs(args, ['help']);
  if (p.flags.has('help')) {
    io.stdout(USAGE);
    return 0;
  }
  const flags: DaemonFlags = {
    wallet: flagString(p, 'wallet'),
    hotkey: flagString(p, 'hotkey'),
    walletPath: flagString(p, 'wallet-path'),
    chain: flagString(p, 'chain'),
    api: flagString(p, 'api'),
    master: flagString(p, 'master'),
    netuid: flagString(p, 'netuid'),
    pollS: flagString(p, 'poll-s'),
    resubmitBlocks: flagString(p, 'resubmit-blocks'),
    dataDir: flagString(p, 'data-dir'),
    stateFile: flagString(p, 'state-file'),
  };
  const r = resolveDaemonConfig(flags, io.env);
  if (!r.ok) {
    io.stderr(`engy-panel validate: bad configuration\n${r.errors.map((e) => `  - ${e}\n`).join('')}\n${USAGE}`);
    return 2;
  }
  const cfg = r.config;
  const hub = new LogHub({ dir: dataPaths(cfg.dataDir).logs, echo: (l) => io.stdout(`${l}\n`) });
  let signer;
  try {
    const { loadHotkeySigner } = await import('../engine/wallet/hotkey-signer.ts');
    signer = await loadHotkeySigner({ walletPath: cfg.walletPath, wallet: cfg.wallet, hotkey: cfg.hotkey, env: io.env, redactor: hub.redactor });
  } catch (e) {
    io.stderr(`engy-panel validate: cannot load the hotkey ${cfg.wallet}/${cfg.hotkey}: ${(e as Error).message}\n`);
    return 1;
  }
  return runValidatorDaemon(cfg, {
    openChain: () => polkadotChain(cfg.chainUrl, hub.logger('chain')),
    signer,
    out: io.stdout,
    stopSignal: io.stopSignal,
    version: panelVersion(),
    hub,
  });
};
