// The panel's coldkey: created or imported in btcli's $NACL format (the engine's own reader opens
// it), coldkeypub.txt beside it, 0600 files in 0700 folders, never overwriting; or only
// coldkeypub.txt from an address. Hostile names, addresses, words and passwords are refused.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createColdkey, writeColdkeyPub } from '../../../electron/engine/wallet/coldkey-create.ts';
import { readColdkeyInfo, unlockColdkey } from '../../../electron/engine/wallet/coldkey.ts';
import { listWallets } from '../../../electron/engine/wallet/wallet-scan.ts';
import { DEV_MNEMONIC_A, TEST_KDF, appFailure, tempWalletDirs } from '../../doubles/btcli-wallet.ts';

const dirs = tempWalletDirs();
afterEach(() => dirs.cleanup());
const mode = (p: string) => statSync(p).mode & 0o777;
const VECTOR_ADDRESS = '5HDvhV6WDCjCKyrXqGQSDYqQAzkzabNhctmiDYEqgBC66BsX';

describe('coldkey created by the panel', () => {
  it('writes a $NACL coldkey the btcli reader opens with the password, and its coldkeypub.txt', async () => {
    const walletPath = dirs.make();
    const created = await createColdkey({ walletPath, wallet: 'cold', source: { kind: 'generate' }, password: 'correct horse 42', kdf: TEST_KDF });
    expect(created.mnemonic!.split(' ')).toHaveLength(12);
    const file = join(walletPath, 'cold', 'coldkey');
    expect(readFileSync(file).subarray(0, 5).toString()).toBe('$NACL');
    expect(readFileSync(file).toString()).not.toContain(created.mnemonic!.split(' ')[0]! + ' ');
    expect(mode(file)).toBe(0o600);
    expect(mode(join(walletPath, 'cold', 'coldkeypub.txt'))).toBe(0o600);
    expect(mode(join(walletPath, 'cold'))).toBe(0o700);
    expect(readColdkeyInfo({ walletPath, wallet: 'cold' })).toEqual({ address: created.ss58Address, encryption: 'nacl' });
    const signer = await unlockColdkey({ walletPath, wallet: 'cold', password: 'correct horse 42', kdf: TEST_KDF, env: {} });
    expect(signer.address).toBe(created.ss58Address);
    signer.lock();
    await expect(unlockColdkey({ walletPath, wallet: 'cold', password: 'wrong password', kdf: TEST_KDF, env: {} })).rejects.toMatchObject({ code: 'wallet-bad-password' });
    const w = listWallets(walletPath).wallets[0]!;
    expect(w).toMatchObject({ name: 'cold', coldkeyAddress: created.ss58Address, coldkeyEncryption: 'nacl' });
  });

  it('imports from words or a 0x seed to the same address btwallet derives (CHAIN.md vector)', async () => {
    const walletPath = dirs.make();
    const fromWords = await createColdkey({ walletPath, wallet: 'a', source: { kind: 'mnemonic', mnemonic: `  ${DEV_MNEMONIC_A.toUpperCase()} ` }, password: 'pw-long-enough', kdf: TEST_KDF });
    expect(fromWords).toEqual({ ss58Address: VECTOR_ADDRESS });
    const fromSeed = await createColdkey({
      walletPath,
      wallet: 'b',
      source: { kind: 'seed', seed: '0xda3cf5b1e9144931a0f0db65664aab662673b099415a7f8121b7245fb0be4143' },
      password: 'pw-long-enough',
      kdf: TEST_KDF,
    });
    expect(fromSeed.ss58Address).toBe(VECTOR_ADDRESS);
  });

  it('never overwrites a coldkey or coldkeypub.txt that is there', async () => {
    const walletPath = dirs.make();
    mkdirSync(join(walletPath, 'w'), { recursive: true });
    writeFileSync(join(walletPath, 'w', 'coldkeypub.txt'), 'precious');
    const e = await appFailure(createColdkey({ walletPath, wallet: 'w', source: { kind: 'generate' }, password: 'pw-long-enough', kdf: TEST_KDF }));
    expect(e.code).toBe('wallet-exists');
    expect(readFileSync(join(walletPath, 'w', 'coldkeypub.txt'), 'utf8')).toBe('precious');
    expect(existsSync(join(walletPath, 'w', 'coldkey'))).toBe(false);
    await expect(async () => writeColdkeyPub({ walletPath, wallet: 'w', address: VECTOR_ADDRESS })).rejects.toMatchObject({ code: 'wallet-exists' });
  });

  it('refuses short passwords, bad words, bad seeds and path-climbing wallet names', async () => {
    const walletPath = dirs.make();
    const bad = [
      { wallet: 'x', source: { kind: 'generate' as const }, password: 'short' },
      { wallet: 'x', source: { kind: 'mnemonic' as const, mnemonic: 'not a real mnemonic at all no no no no no no' }, password: 'pw-long-enough' },
      { wallet: 'x', source: { kind: 'seed' as const, seed: '0x1234' }, password: 'pw-long-enough' },
      { wallet: '../escape', source: { kind: 'generate' as const }, password: 'pw-long-enough' },
      { wallet: '.hidden', source: { kind: 'generate' as const }, password: 'pw-long-enough' },
    ];
    for (const b of bad) {
      const e = await appFailure(createColdkey({ walletPath, ...b, kdf: TEST_KDF }));
      expect(e.code).toBe('bad-request');
      // The refusal never echoes the secret it was given.
      expect(e.message).not.toContain(b.password);
    }
    expect(listWallets(walletPath).wallets).toEqual([]);
  });
});

describe('coldkeypub.txt only, for a coldkey in a browser wallet', () => {
  it('writes the public file from an SS58 address, and the listing shows the address', () => {
    const walletPath = dirs.make();
    expect(writeColdkeyPub({ walletPath, wallet: 'ext', address: ` ${VECTOR_ADDRESS} ` })).toEqual({ ss58Address: VECTOR_ADDRESS });
    const pub = JSON.parse(readFileSync(join(walletPath, 'ext', 'coldkeypub.txt'), 'utf8')) as Record<string, string>;
    expect(pub.ss58Address).toBe(VECTOR_ADDRESS);
    expect(pub.publicKey).toBe('0xe4359ad3e2716c539a1d663ebd0a51bdc5c98a12e663bb4c4402db47828c9446');
    expect(existsSync(join(walletPath, 'ext', 'coldkey'))).toBe(false);
    expect(listWallets(walletPath).wallets[0]).toMatchObject({ coldkeyAddress: VECTOR_ADDRESS, coldkeyEncryption: 'missing' });
  });

  it('refuses garbage, a broken checksum, oversized and prototype-named input', () => {
    const walletPath = dirs.make();
    const broken = VECTOR_ADDRESS.slice(0, -1) + (VECTOR_ADDRESS.endsWith('X') ? 'Y' : 'X');
    for (const address of ['', 'hello', broken, 'x'.repeat(10_000), '__proto__', '0xe4359ad3e2716c539a1d663ebd0a51bdc5c98a12e663bb4c4402db47828c9446']) {
      expect(() => writeColdkeyPub({ walletPath, wallet: 'w', address })).toThrow(/SS58|checksum|address/);
    }
    expect(() => writeColdkeyPub({ walletPath, wallet: '__proto__/..', address: VECTOR_ADDRESS })).toThrow(/not a usable wallet name/);
    expect(listWallets(walletPath).wallets).toEqual([]);
  });
});
