import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import { createHotkey } from '../../../electron/engine/wallet/hotkey-create.ts';
import { loadHotkeySigner } from '../../../electron/engine/wallet/hotkey-signer.ts';
import { listWallets } from '../../../electron/engine/wallet/wallet-scan.ts';
import { parseKeyfile } from '../../../electron/engine/wallet/keyfile-format.ts';
import { resolveWalletPath } from '../../../electron/engine/wallet/wallet-location.ts';
import { naclSealOffThread } from '../../../electron/engine/wallet/nacl-off-thread.ts';
import { DEV_MNEMONIC_A, DEV_MNEMONIC_B, keyfileJson, tempWalletDirs, appFailure, writeColdkey, writeLegacyHotkey, TEST_KDF } from '../../doubles/btcli-wallet.ts';

const { stringToU8a } = polkadot('@polkadot/util');
const { decodeAddress, sr25519Verify } = polkadot('@polkadot/util-crypto');

const dirs = tempWalletDirs();
const tmp = () => dirs.make();
const failure = appFailure;
afterEach(() => dirs.cleanup());

describe('btcli wallet files', () => {
  it('creates a hotkey as btcli does and reads it back to the same key', async () => {
    const walletPath = tmp();
    const created = await createHotkey({ walletPath, wallet: 'miner', hotkey: 'h1', source: { kind: 'generate' } });
    expect(created.mnemonic?.split(' ')).toHaveLength(12);

    const keyfile = join(walletPath, 'miner', 'hotkeys', 'h1');
    const pubfile = join(walletPath, 'miner', 'hotkeys', 'h1pub.txt');
    expect(statSync(keyfile).mode & 0o777).toBe(0o600);
    expect(statSync(pubfile).mode & 0o777).toBe(0o600);
    const json = parseKeyfile(readFileSync(keyfile));
    expect(Object.keys(json).sort()).toEqual(['accountId', 'privateKey', 'publicKey', 'secretPhrase', 'secretSeed', 'ss58Address']);
    expect(json.secretPhrase).toBe(created.mnemonic);
    expect(json.ss58Address).toBe(created.ss58Address);
    expect(parseKeyfile(readFileSync(pubfile))).toEqual({ accountId: created.publicKey, publicKey: created.publicKey, ss58Address: created.ss58Address });

    const signer = await loadHotkeySigner({ walletPath, wallet: 'miner', hotkey: 'h1' });
    expect(signer.address).toBe(created.ss58Address);
    const msg = stringToU8a('weights');
    expect(sr25519Verify(msg, signer.sign(msg), decodeAddress(created.ss58Address))).toBe(true);
    expect(signer.pair.address).toBe(created.ss58Address);
  });

  it('imports a mnemonic or a seed to the btwallet vector address and never overwrites', async () => {
    const walletPath = tmp();
    const a = await createHotkey({ walletPath, wallet: 'w', hotkey: 'a', source: { kind: 'mnemonic', mnemonic: `  ${DEV_MNEMONIC_A.toUpperCase()} ` } });
    expect(a.ss58Address).toBe('5HDvhV6WDCjCKyrXqGQSDYqQAzkzabNhctmiDYEqgBC66BsX');
    expect(a.mnemonic).toBeUndefined();
    const b = await createHotkey({ walletPath, wallet: 'w', hotkey: 'b', source: { kind: 'seed', seed: 'da3cf5b1e9144931a0f0db65664aab662673b099415a7f8121b7245fb0be4143' } });
    expect(b.ss58Address).toBe(a.ss58Address);
    const seedOnly = parseKeyfile(readFileSync(join(walletPath, 'w', 'hotkeys', 'b')));
    expect(seedOnly.secretPhrase).toBeUndefined();
    expect((await loadHotkeySigner({ walletPath, wallet: 'w', hotkey: 'b' })).address).toBe(a.ss58Address);

    const before = readFileSync(join(walletPath, 'w', 'hotkeys', 'a'), 'utf8');
    const e = await failure(createHotkey({ walletPath, wallet: 'w', hotkey: 'a', source: { kind: 'mnemonic', mnemonic: DEV_MNEMONIC_B } }));
    expect(e.code).toBe('wallet-exists');
    expect(readFileSync(join(walletPath, 'w', 'hotkeys', 'a'), 'utf8')).toBe(before);

    expect((await failure(createHotkey({ walletPath, wallet: 'w', hotkey: 'c', source: { kind: 'mnemonic', mnemonic: 'not a real phrase' } }))).code).toBe('bad-request');
    expect((await failure(createHotkey({ walletPath, wallet: 'w', hotkey: '../evil', source: { kind: 'generate' } }))).code).toBe('bad-request');
    expect(existsSync(join(walletPath, 'evil'))).toBe(false);
  });

  it('lists wallets, hotkeys, addresses and which files are encrypted', async () => {
    const walletPath = tmp();
    const cold = await writeColdkey({ walletPath, wallet: 'main', mnemonic: DEV_MNEMONIC_B, password: 'pw', kdf: TEST_KDF });
    const legacyHot = await writeLegacyHotkey(walletPath, 'main', 'old', DEV_MNEMONIC_A);
    const fresh = await createHotkey({ walletPath, wallet: 'main', hotkey: 'new', source: { kind: 'generate' } });
    await writeColdkey({ walletPath, wallet: 'ancient', mnemonic: DEV_MNEMONIC_A, rawColdkey: '$ANSIBLE_VAULT;1.1;AES256\n6162' });
    writeFileSync(join(walletPath, 'not-a-wallet.txt'), 'x');

    const listing = listWallets(walletPath);
    expect(listing.exists).toBe(true);
    expect(listing.wallets.map((w) => w.name)).toEqual(['ancient', 'main']);
    const main = listing.wallets[1]!;
    expect(main.coldkeyAddress).toBe(cold.address);
    expect(main.coldkeyEncryption).toBe('nacl');
    expect(main.hotkeys).toEqual([
      { name: 'new', ss58Address: fresh.ss58Address, encryption: 'none', hasPublicFile: true },
      { name: 'old', ss58Address: legacyHot.address, encryption: 'none', hasPublicFile: false },
    ]);
    const ancient = listing.wallets[0]!;
    expect(ancient.coldkeyEncryption).toBe('ansible-vault');
    expect(ancient.problems.join(' ')).toMatch(/regen_coldkey/);
    expect(JSON.stringify(listing)).not.toMatch(/secretPhrase|privateKey|secretSeed/);
    expect(JSON.stringify(listing)).not.toContain(fresh.mnemonic!);

    expect(listWallets(join(walletPath, 'nope'))).toEqual({ walletPath: join(walletPath, 'nope'), exists: false, wallets: [] });
  });

  it('explains missing, public-only and password-protected hotkeys', async () => {
    const walletPath = tmp();
    expect((await failure(loadHotkeySigner({ walletPath, wallet: 'x', hotkey: 'y' }))).code).toBe('wallet-not-found');
    const created = await createHotkey({ walletPath, wallet: 'x', hotkey: 'y', source: { kind: 'generate' } });
    // A hotkey file with only the public part (as if the secret had been stripped).
    writeFileSync(join(walletPath, 'x', 'hotkeys', 'pubonly'), readFileSync(join(walletPath, 'x', 'hotkeys', 'ypub.txt')));
    const e = await failure(loadHotkeySigner({ walletPath, wallet: 'x', hotkey: 'pubonly' }));
    expect(e.message).toMatch(/only a public key/);
    expect(created.ss58Address).toMatch(/^5/);
  });

  it('resolves the wallet folder: explicit, then BT_WALLET_PATH, then ~/.bittensor/wallets', () => {
    expect(resolveWalletPath('/a/b', { BT_WALLET_PATH: '/c' })).toBe('/a/b');
    expect(resolveWalletPath(undefined, { BT_WALLET_PATH: '/c' })).toBe('/c');
    expect(resolveWalletPath(undefined, {})).toMatch(/\.bittensor\/wallets$/);
  });
});

describe('password-protected hotkeys (btcli --use-password)', () => {
  it('load with the password and explain a missing or wrong one', async () => {
    const walletPath = tmp();
    mkdirSync(join(walletPath, 'w', 'hotkeys'), { recursive: true });
    const { json, address } = keyfileJson(DEV_MNEMONIC_A);
    writeFileSync(join(walletPath, 'w', 'hotkeys', 'locked'), await naclSealOffThread(new TextEncoder().encode(json), 'hotpw', TEST_KDF));
    expect((await failure(loadHotkeySigner({ walletPath, wallet: 'w', hotkey: 'locked', env: {}, kdf: TEST_KDF }))).code).toBe('wallet-locked');
    expect((await failure(loadHotkeySigner({ walletPath, wallet: 'w', hotkey: 'locked', password: 'nope', kdf: TEST_KDF }))).code).toBe('wallet-bad-password');
    expect((await loadHotkeySigner({ walletPath, wallet: 'w', hotkey: 'locked', password: 'hotpw', kdf: TEST_KDF })).address).toBe(address);
    expect(listWallets(walletPath).wallets[0]?.hotkeys[0]).toEqual({ name: 'locked', ss58Address: null, encryption: 'nacl', hasPublicFile: false });
  });
});
