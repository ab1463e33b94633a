// Shared by the daemon child-process tests: `engy-panel validate` spawned from source with its output captured
// line by line, and a btcli-layout wallet holding one fresh unencrypted hotkey.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import type { KeyringPair } from '@polkadot/keyring/types';
import { afterAll, expect, vi } from 'vitest';
import { startDevChain, type RunningDevChain, type SeedSubnet } from '../../doubles/dev-chain/index.ts';
import type { ProviderDouble } from '../../doubles/provider.ts';
import { validatorSeed } from './harness.ts';

const { Keyring } = polkadot('@polkadot/keyring');
const { mnemonicGenerate } = polkadot('@polkadot/util-crypto');

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

/** The `validate` arguments the daemon tests share: wallet `val`/`hk`, 1 s polls, the given resubmit cadence. */
export function daemonArgs(o: { walletPath: string; chainUrl: string; provider: ProviderDouble; resubmitBlocks: number; dataDir: string }): string[] {
  return [
    '--wallet',
    'val',
    '--hotkey',
    'hk',
    '--wallet-path',
    o.walletPath,
    '--chain',
    o.chainUrl,
    '--api',
    o.provider.url,
    '--master',
    o.provider.masterHotkey,
    '--poll-s',
    '1',
    '--resubmit-blocks',
    String(o.resubmitBlocks),
    '--data-dir',
    o.dataDir,
  ];
}

/**
 * Waits for the child's first extrinsic to reach the pool, includes it in a block and SIGKILLs the child before
 * it can record the inclusion: the crash window every kill test is about. A timeout shows the child's output.
 */
export async function killRightAfterInclusion(dev: RunningDevChain, child: Child, timeoutMs: number): Promise<void> {
  await vi
    .waitFor(() => expect(dev.chain.pending().length).toBeGreaterThan(0), { timeout: timeoutMs, interval: 20 })
    .catch((e: unknown) => {
      throw new Error(`${String(e)}\n${child.out.join('\n')}`);
    });
  dev.produceBlock();
  child.proc.kill('SIGKILL');
  await child.exited;
}

/** SIGKILL whatever child is still running. */
export function killAll(children: readonly Child[]): void {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
}

/** The dev chain the daemon tests use: manual blocks (the test drives them), 10 blocks of history, validatorSeed. */
export function startDaemonChain(hot: string, subnet: Partial<SeedSubnet> = {}): Promise<RunningDevChain> {
  return startDevChain({ port: 0, blockMs: 0, startBlocks: 10, seed: validatorSeed(hot, subnet) });
}

/**
 * What one daemon suite starts (the dev chain, the provider double, daemon children, a block timer), released
 * when the suite ends whatever happened: timer cleared, children SIGKILLed, chain and provider closed.
 */
export interface DaemonSuite {
  dev: RunningDevChain | null;
  provider: ProviderDouble | null;
  children: Child[];
  blockTimer?: ReturnType<typeof setInterval>;
  /** startDaemon, remembered for the cleanup. */
  start(args: string[]): Child;
  /** Produces a block every `ms` until stopBlocks() or the suite's end. */
  produceBlocksEvery(ms: number): void;
  stopBlocks(): void;
}

export function daemonSuite(): DaemonSuite {
  const suite: DaemonSuite = {
    dev: null,
    provider: null,
    children: [],
    start(args) {
      const c = startDaemon(args);
      suite.children.push(c);
      return c;
    },
    produceBlocksEvery(ms) {
      clearInterval(suite.blockTimer);
      suite.blockTimer = setInterval(() => suite.dev?.produceBlock(), ms);
    },
    stopBlocks() {
      clearInterval(suite.blockTimer);
    },
  };
  afterAll(async () => {
    suite.stopBlocks();
    killAll(suite.children);
    await suite.dev?.close();
    await suite.provider?.close();
  });
  return suite;
}
