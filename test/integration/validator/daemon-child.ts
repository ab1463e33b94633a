// Shared by the daemon child-process tests: `engy-panel validate` spawned from source with its output captured
// line by line, and a btcli-layout wallet holding one fresh unencrypted hotkey.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keyring } from '@polkadot/keyring';
import type { KeyringPair } from '@polkadot/keyring/types';
import { mnemonicGenerate } from '@polkadot/util-crypto';
import { afterAll } from 'vitest';
import { startDevChain, type RunningDevChain, type SeedSubnet } from '../../doubles/dev-chain/index.ts';
import type { ProviderDouble } from '../../doubles/provider.ts';
import { validatorSeed } from './harness.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = join(root, 'bin', 'engy-panel.mjs');

export interface Child {
  proc: ChildProcess;
  out: string[];
  exited: Promise<number | null>;
}

export function startDaemon(args: string[]): Child {
  const proc = spawn(process.execPath, [bin, 'validate', ...args], {
    env: { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), 'engy-home-')), ENGY_FROM_SOURCE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  let buf = '';
  const take = (d: Buffer) => {
    buf += d.toString('utf8');
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    out.push(...lines);
  };
  proc.stdout?.on('data', take);
  proc.stderr?.on('data', take);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, out, exited };
}

/** Wallet `val`, hotkey `hk` (mnemonic, unencrypted, btcli's JSON) in `walletPath` (default: a fresh temp folder). */
export function makeHotkeyWallet(walletPath = mkdtempSync(join(tmpdir(), 'engy-wallets-'))): { hot: KeyringPair; walletPath: string } {
  const phrase = mnemonicGenerate();
  const hot = new Keyring({ type: 'sr25519', ss58Format: 42 }).addFromMnemonic(phrase);
  mkdirSync(join(walletPath, 'val', 'hotkeys'), { recursive: true });
  const hex = `0x${Buffer.from(hot.publicKey).toString('hex')}`;
  writeFileSync(join(walletPath, 'val', 'hotkeys', 'hk'), JSON.stringify({ secretPhrase: phrase, ss58Address: hot.address, publicKey: hex, accountId: hex }));
  return { hot, walletPath };
}

/** SIGKILL whatever child is still running. */
export function killAll(children: readonly Child[]): void {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
}

/** The dev chain the daemon tests use: manual blocks (the test drives them), 10 blocks of history, validatorSeed. */
export function startDaemonChain(hot: string, subnet: Partial<SeedSubnet> = {}): Promise<RunningDevChain> {
  return startDevChain({ port: 0, blockMs: 0, startBlocks: 10, seed: validatorSeed(hot, subnet) });
}

/** Registers the suite's cleanup: block timer, children, dev chain and provider, read when the suite ends. */
export function cleanUpAfterAll(get: () => { blockTimer?: ReturnType<typeof setInterval> | undefined; children: readonly Child[]; dev: RunningDevChain | null; provider: ProviderDouble | null }): void {
  afterAll(async () => {
    const r = get();
    clearInterval(r.blockTimer);
    killAll(r.children);
    await r.dev?.close();
    await r.provider?.close();
  });
}
