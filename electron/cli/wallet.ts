// `engy-panel wallet ...`: btcli wallets, hotkeys, the miner key and registration for operators without
// a display. Secrets are read from stdin (never from argv, which `ps` shows), printed only once (a new
// mnemonic), and never logged.
import { AppFailure } from '../../shared/errors.ts';
import { formatTao, parseTao, type WalletListing } from '../../shared/wallet.ts';
import type { ChainPort } from '../engine/chain/ports.ts';
import { defaultHeadlessDataDir, dataPaths } from '../engine/lib/paths.ts';
import { defineCommand, parseCommand, pickSubcommand, UsageError, type CommandSpec, type OptionValues } from './args.ts';
import { readSecretLine } from './read-secret.ts';
import { cliCommand } from './run-command.ts';
import type { CliCommand, CliIo } from './types.ts';
import { CHAIN_ENDPOINTS, PROVIDER_HOST } from '../../shared/network.ts';

const USAGE = `usage: engy-panel wallet <command> [options]
  list           [--wallet-path DIR] [--json]          wallets, hotkeys, ss58 addresses, which files are encrypted
  create-hotkey  --wallet W --hotkey H [--wallet-path DIR] [--import]
                 new hotkey (prints its mnemonic once); --import reads a mnemonic or 0x seed from stdin
  status         --wallet W --hotkey H [--wallet-path DIR] [--chain finney|test|local|URL] [--json]
                 registration on subnet 53: uid, validator permit, stake, cost, coldkey balance
  register       --wallet W --hotkey H --max-cost TAO [--burned] [--chain ...] [--wallet-path DIR]
                 pays the burn from the coldkey; the coldkey password is read from stdin (or btwallet's BT_PW_ variable)
  miner-key      set|status|clear [--data-dir D]        set reads the key from stdin
`;

// One table for the wallet subcommands: each reads only its own flags, the parser refuses the rest per subcommand.
const KEY = { wallet: { kind: 'string' }, hotkey: { kind: 'string' }, 'wallet-path': { kind: 'string' } } as const;
const SPECS = {
  list: defineCommand({ usage: USAGE, options: { 'wallet-path': { kind: 'string' }, json: { kind: 'boolean' } } }),
  'create-hotkey': defineCommand({ usage: USAGE, options: { ...KEY, import: { kind: 'boolean' } } }),
  status: defineCommand({ usage: USAGE, options: { ...KEY, chain: { kind: 'string' }, json: { kind: 'boolean' } } }),
  register: defineCommand({ usage: USAGE, options: { ...KEY, chain: { kind: 'string' }, 'max-cost': { kind: 'string' }, burned: { kind: 'boolean' } } }),
  'miner-key': defineCommand({ usage: USAGE, options: { 'data-dir': { kind: 'string' } }, positionals: { max: 1 } }),
};
type Flags = OptionValues<typeof KEY> & { chain?: string; json?: boolean; import?: boolean; 'max-cost'?: string; burned?: boolean; 'data-dir'?: string };

/** The @polkadot/api client and its endpoint presets, imported only by the commands that talk to the chain. */
async function openChain(chain: string | undefined): Promise<ChainPort> {
  const { normalizeEndpointUrl } = await import('../engine/chain/endpoints.ts');
  const name = chain ?? 'finney';
  const url = Object.hasOwn(CHAIN_ENDPOINTS, name) ? (CHAIN_ENDPOINTS as Record<string, string>)[name]! : normalizeEndpointUrl(name);
  if (!url) throw new AppFailure('bad-request', `--chain wants finney, test, local or a ws:// / wss:// URL, not "${name}".`);
  const { openChainClient } = await import('../engine/chain/open-chain.ts');
  return openChainClient(url);
}

function need(p: Flags, name: 'wallet' | 'hotkey' | 'max-cost'): string {
  const v = p[name];
  if (!v) throw new UsageError(`--${name} is required`, USAGE);
  return v;
}

function printListing(l: WalletListing, io: CliIo): void {
  if (!l.exists) {
    io.stdout(`No wallet folder at ${l.walletPath}: create a wallet with btcli, or pass --wallet-path.\n`);
    return;
  }
  io.stdout(`Wallets in ${l.walletPath}\n`);
  if (l.wallets.length === 0) io.stdout('  (none)\n');
  for (const w of l.wallets) {
    io.stdout(`\n${w.name}\n  coldkey  ${w.coldkeyAddress ?? '(address unknown)'}  [${w.coldkeyEncryption}]\n`);
    for (const h of w.hotkeys) io.stdout(`  hotkey   ${h.name.padEnd(16)} ${h.ss58Address ?? '(address unknown)'}  [${h.encryption}]\n`);
    for (const problem of w.problems) io.stdout(`  ! ${problem}\n`);
  }
}

async function list(p: Flags, io: CliIo): Promise<number> {
  const { listWallets } = await import('../engine/wallet/wallet-scan.ts');
  const { resolveWalletPath } = await import('../engine/wallet/wallet-location.ts');
  const listing = listWallets(resolveWalletPath(p['wallet-path'], io.env));
  if (p.json) io.stdout(JSON.stringify(listing, null, 2) + '\n');
  else printListing(listing, io);
  return 0;
}

async function createHotkeyCmd(p: Flags, io: CliIo): Promise<number> {
  const { createHotkey } = await import('../engine/wallet/hotkey-create.ts');
  const wallet = need(p, 'wallet');
  const hotkey = need(p, 'hotkey');
  const walletPath = p['wallet-path'];
  let source: Parameters<typeof createHotkey>[0]['source'] = { kind: 'generate' };
  if (p.import) {
    const secret = (await readSecretLine(io.stdin, 'Mnemonic or 0x seed of the hotkey: ', io.stderr)).trim();
    source = /^(0x)?[0-9a-fA-F]{64}$/.test(secret) ? { kind: 'seed', seed: secret } : { kind: 'mnemonic', mnemonic: secret };
  }
  const created = await createHotkey({ wallet, hotkey, source, env: io.env, ...(walletPath ? { walletPath } : {}) });
  // The mnemonic comes first: `| head -2` (or a terminal that closes early) must still show it.
  if (created.mnemonic) {
    io.stdout(
      `Mnemonic of the new hotkey ${wallet}/${hotkey}: ${created.mnemonic}\n` +
        `IMPORTANT: write these words down now and keep them offline. They are the only way to restore this hotkey, and they will not be shown again.\n\n`,
    );
  }
  io.stdout(`Created hotkey ${wallet}/${hotkey}: ${created.ss58Address}\n  ${created.files.keyfile}\n  ${created.files.publicFile}\n`);
  return 0;
}

async function status(p: Flags, io: CliIo): Promise<number> {
  const { loadHotkeyAddress } = await import('../engine/wallet/hotkey-address.ts');
  const { RegistrationService } = await import('../engine/wallet/registration-service.ts');
  const wallet = need(p, 'wallet');
  const walletPath = p['wallet-path'];
  const hotkey = loadHotkeyAddress({ wallet, hotkey: need(p, 'hotkey'), env: io.env, ...(walletPath ? { walletPath } : {}) });
  const chain = await openChain(p.chain);
  try {
    const service = new RegistrationService({ chain, env: io.env, ...(walletPath ? { walletPath } : {}) });
    const s = await service.status({ hotkey, wallet });
    if (p.json) {
      io.stdout(JSON.stringify(s, null, 2) + '\n');
      return 0;
    }
    const r = s.registration;
    io.stdout(`hotkey     ${r.hotkey}\nsubnet     ${r.netuid} (block ${r.block})\n`);
    io.stdout(r.registered ? `registered uid ${r.uid}\npermit     ${r.validatorPermit ? 'yes' : 'no'}\nstake      ${formatTao(r.stakeRao).replace('τ', 'α')}\n` : 'registered no\n');
    io.stdout(`cost       ${formatTao(s.quote.costRao)} (moves every block)\n`);
    io.stdout(`coldkey    ${s.quote.coldkey ?? '(unknown: no coldkeypub.txt)'}${s.quote.coldkeyFreeRao !== null ? `  free ${formatTao(s.quote.coldkeyFreeRao)}` : ''}\n`);
    return 0;
  } finally {
    await chain.close();
  }
}

async function register(p: Flags, io: CliIo): Promise<number> {
  const { loadHotkeyAddress } = await import('../engine/wallet/hotkey-address.ts');
  const { RegistrationService } = await import('../engine/wallet/registration-service.ts');
  const { passwordFromEnv } = await import('../engine/wallet/read-keyfile.ts');
  const { keyPaths, resolveWalletPath } = await import('../engine/wallet/wallet-location.ts');
  const { readColdkeyInfo } = await import('../engine/wallet/coldkey.ts');
  const wallet = need(p, 'wallet');
  const walletPath = resolveWalletPath(p['wallet-path'], io.env);
  const burned = p.burned === true;
  const maxCost = burned ? undefined : parseTao(need(p, 'max-cost'));
  const hotkey = loadHotkeyAddress({ wallet, hotkey: need(p, 'hotkey'), env: io.env, walletPath });
  // Only a $NACL coldkey has a password (btcli --no-use-password writes plaintext ones).
  const encrypted = readColdkeyInfo({ walletPath, wallet, env: io.env }).encryption === 'nacl';
  const password = !encrypted ? '' : (passwordFromEnv(keyPaths(walletPath, wallet).coldkey, io.env) ?? (await readSecretLine(io.stdin, `Password of the coldkey of wallet "${wallet}": `, io.stderr)));
  const chain = await openChain(p.chain);
  try {
    const service = new RegistrationService({ chain, walletPath, env: io.env });
    io.stderr('Decrypting the coldkey (about 10 s) and registering...\n');
    const r = await service.register({
      hotkey,
      coldkey: { kind: 'password', wallet, password },
      mode: burned ? 'burned-register' : 'register-limit',
      ...(maxCost !== undefined ? { maxCostRao: maxCost } : {}),
    });
    io.stdout(`Registered ${r.hotkey} on subnet ${r.netuid}${r.uid !== null ? ` as uid ${r.uid}` : ''} in block ${r.blockNumber} (cost ${formatTao(r.quotedCostRao)}).\n`);
    return 0;
  } finally {
    await chain.close();
  }
}

async function minerKey(p: Flags, action: string, io: CliIo): Promise<number> {
  const { MinerKeyStore } = await import('../engine/wallet/miner-key-store.ts');
  const store = new MinerKeyStore({ secretsDir: dataPaths(p['data-dir'] ?? defaultHeadlessDataDir(io.env)).secrets, env: io.env });
  let s;
  if (action === 'set') s = store.set(await readSecretLine(io.stdin, `Miner key from ${PROVIDER_HOST}: `, io.stderr));
  else if (action === 'clear') s = store.clear();
  else if (action === 'status') s = store.status();
  else throw new UsageError(`unknown miner-key action "${action}": use set, status or clear`, USAGE);
  io.stdout(`miner key  ${s.present ? s.masked : '(none)'}  [${s.storage}]\n`);
  if (s.warning) io.stderr(`warning: ${s.warning}\n`);
  return 0;
}

export const run: CliCommand = async (args, io) => {
  const sub = args[0] ?? '';
  return cliCommand(`wallet ${sub}`.trim(), async () => {
    const picked = pickSubcommand(args, Object.keys(SPECS) as (keyof typeof SPECS)[], USAGE);
    const { values, positionals } = parseCommand(picked.rest, SPECS[picked.sub] as CommandSpec);
    const p = values as Flags;
    switch (picked.sub) {
      case 'list':
        return list(p, io);
      case 'create-hotkey':
        return createHotkeyCmd(p, io);
      case 'status':
        return status(p, io);
      case 'register':
        return register(p, io);
      case 'miner-key':
        return minerKey(p, positionals[0] ?? 'status', io);
    }
  })(args, io);
};
