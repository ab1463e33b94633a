import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { run } from '../../../electron/cli/wallet.ts';
import { recordingIo } from '../../helpers/cli-io.ts';
import { DEV_MNEMONIC_A, DEV_MNEMONIC_B, TEST_KDF, tempWalletDirs, writeColdkey } from '../../doubles/btcli-wallet.ts';

const dirs = tempWalletDirs();
afterEach(() => dirs.cleanup());

const io = recordingIo;

describe('engy-panel wallet', () => {
  it('creates a hotkey, prints its mnemonic once with a warning, then lists it', async () => {
    const walletPath = dirs.make();
    await writeColdkey({ walletPath, wallet: 'w', mnemonic: DEV_MNEMONIC_B, password: 'pw', kdf: TEST_KDF });
    const c = io();
    expect(await run(['create-hotkey', '--wallet', 'w', '--hotkey', 'h1', '--wallet-path', walletPath], c)).toBe(0);
    expect(c.out).toMatch(/write these words down now/);
    const mnemonic = /^Mnemonic of the new hotkey w\/h1: ([a-z ]+)\n/.exec(c.out)?.[1];
    expect(mnemonic?.split(' ')).toHaveLength(12);

    const again = io();
    expect(await run(['create-hotkey', '--wallet', 'w', '--hotkey', 'h1', '--wallet-path', walletPath], again)).toBe(1);
    expect(again.err).toMatch(/already exists/);

    const imp = io(`${DEV_MNEMONIC_A}\n`);
    expect(await run(['create-hotkey', '--wallet', 'w', '--hotkey', 'imported', '--import', '--wallet-path', walletPath], imp)).toBe(0);
    expect(imp.out).toContain('5HDvhV6WDCjCKyrXqGQSDYqQAzkzabNhctmiDYEqgBC66BsX');
    expect(imp.out).not.toContain(DEV_MNEMONIC_A);

    const l = io();
    expect(await run(['list', '--wallet-path', walletPath, '--json'], l)).toBe(0);
    const listing = JSON.parse(l.out) as { wallets: { name: string; coldkeyEncryption: string; hotkeys: { name: string }[] }[] };
    expect(listing.wallets[0]?.coldkeyEncryption).toBe('nacl');
    expect(listing.wallets[0]?.hotkeys.map((h) => h.name)).toEqual(['h1', 'imported']);
    expect(l.out).not.toContain(mnemonic!);

    const text = io();
    await run(['list', '--wallet-path', walletPath], text);
    expect(text.out).toMatch(/hotkey {3}imported {9}5HDvhV6WDCjCKyrXqGQSDYqQAzkzabNhctmiDYEqgBC66BsX {2}\[none\]/);
  });

  it('stores the miner key from stdin and shows it masked only', async () => {
    const dataDir = dirs.make();
    const set = io('ek_live_0123456789abcdef3f9a\n');
    expect(await run(['miner-key', 'set', '--data-dir', dataDir], set)).toBe(0);
    expect(set.out).toBe('miner key  ek_…3f9a  [file]\n');
    expect(set.err).toMatch(/OS keyring is not available/);
    const st = io();
    await run(['miner-key', 'status', '--data-dir', join(dataDir)], st);
    expect(st.out).not.toContain('0123456789abcdef');
  });

  it('explains missing flags', async () => {
    const c = io();
    expect(await run(['create-hotkey', '--wallet', 'w'], c)).toBe(2);
    expect(c.err).toMatch(/--hotkey is required/);
  });
});
