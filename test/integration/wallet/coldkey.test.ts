import { afterEach, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sodium from 'libsodium-wrappers-sumo';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import { readColdkeyInfo, unlockColdkey, withColdkeySigner } from '../../../electron/engine/wallet/coldkey.ts';
import { encodePasswordForEnv, passwordEnvName } from '../../../electron/engine/wallet/read-keyfile.ts';
import { DEV_MNEMONIC_A, DEV_MNEMONIC_B, keyfileJson, tempWalletDirs, appFailure, TEST_KDF, writeColdkey } from '../../doubles/btcli-wallet.ts';
import { serializePublicKeyfile } from '../../../electron/engine/wallet/keyfile-format.ts';

const { hexToU8a, stringToU8a } = polkadot('@polkadot/util');
const { decodeAddress, sr25519Verify } = polkadot('@polkadot/util-crypto');

const dirs = tempWalletDirs();
const tmp = () => dirs.make();
const failure = appFailure;
afterEach(() => dirs.cleanup());

describe('coldkey', () => {
  it('opens a $NACL coldkey made by libsodium with the real btcli parameters (Argon2i 8 / 512 MiB)', async () => {
    // test/fixtures/wallet/make-nacl-coldkey.ts wrote it with libsodium directly: one real KDF here, not two.
    const walletPath = tmp();
    const dir = join(walletPath, 'real');
    mkdirSync(dir, { recursive: true });
    copyFileSync(new URL('../../fixtures/wallet/nacl-coldkey.bin', import.meta.url), join(dir, 'coldkey'));
    const { address, publicKey } = keyfileJson(DEV_MNEMONIC_A);
    writeFileSync(join(dir, 'coldkeypub.txt'), serializePublicKeyfile(hexToU8a(publicKey)), { mode: 0o600 });

    expect(readColdkeyInfo({ walletPath, wallet: 'real' })).toEqual({ address, encryption: 'nacl' });
    const signer = await unlockColdkey({ walletPath, wallet: 'real', password: 'correct horse' });
    expect(signer.address).toBe('5HDvhV6WDCjCKyrXqGQSDYqQAzkzabNhctmiDYEqgBC66BsX');
    signer.lock();
    expect(() => signer.sign(new Uint8Array([1]))).toThrow(/locked/);
  }, 180_000);

  it('opens a $NACL file sealed here with libsodium (low limits) and refuses a wrong password clearly', async () => {
    const walletPath = tmp();
    const dir = join(walletPath, 'sealed');
    mkdirSync(dir, { recursive: true });
    const { json, address } = keyfileJson(DEV_MNEMONIC_B);
    await sodium.ready;
    const salt = Uint8Array.from(Buffer.from('137183dff15a09bc9c90b5518739e9b1', 'hex'));
    const key = sodium.crypto_pwhash(32, stringToU8a('pässword'), salt, TEST_KDF.opslimit, TEST_KDF.memlimit, sodium.crypto_pwhash_ALG_ARGON2I13);
    const nonce = sodium.randombytes_buf(24);
    writeFileSync(join(dir, 'coldkey'), Buffer.concat([Buffer.from('$NACL'), nonce, sodium.crypto_secretbox_easy(stringToU8a(json), nonce, key)]));
    const signer = await unlockColdkey({ walletPath, wallet: 'sealed', password: 'pässword', kdf: TEST_KDF });
    expect(signer.address).toBe(address);
    signer.lock();
    const bad = await failure(unlockColdkey({ walletPath, wallet: 'sealed', password: 'password', kdf: TEST_KDF }));
    expect(bad).toMatchObject({ code: 'wallet-bad-password', message: 'That password does not open the coldkey: check it and try again (it is the one you chose in btcli).' });
  });

  it('fails clearly with a wrong or missing password, and unlocks with the right one for one operation only', async () => {
    const walletPath = tmp();
    const { address } = await writeColdkey({ walletPath, wallet: 'w', mnemonic: DEV_MNEMONIC_B, password: 'right', kdf: TEST_KDF });
    const bad = await failure(unlockColdkey({ walletPath, wallet: 'w', password: 'wrong', kdf: TEST_KDF }));
    expect(bad.code).toBe('wallet-bad-password');
    expect(bad.message).toMatch(/password does not open the coldkey/);
    expect((await failure(unlockColdkey({ walletPath, wallet: 'w', kdf: TEST_KDF, env: {} }))).code).toBe('wallet-locked');

    let held: { sign(m: Uint8Array): Uint8Array } | undefined;
    const sig = await withColdkeySigner({ walletPath, wallet: 'w', password: 'right', kdf: TEST_KDF }, async (s) => {
      held = s;
      expect(s.address).toBe(address);
      return s.sign(stringToU8a('extrinsic payload'));
    });
    expect(sr25519Verify(stringToU8a('extrinsic payload'), sig, decodeAddress(address))).toBe(true);
    expect(() => held!.sign(new Uint8Array([1]))).toThrow(/locked/);
  });

  it("reads btwallet's BT_PW_ environment password", async () => {
    const walletPath = tmp();
    const { address } = await writeColdkey({ walletPath, wallet: 'env', mnemonic: DEV_MNEMONIC_B, password: 's3cret', kdf: TEST_KDF });
    const file = join(walletPath, 'env', 'coldkey');
    expect(passwordEnvName('/home/u/.bittensor/wallets/default/coldkey')).toBe('BT_PW__HOME_U__BITTENSOR_WALLETS_DEFAULT_COLDKEY');
    const env = { [passwordEnvName(file)]: encodePasswordForEnv(file, 's3cret') };
    const signer = await unlockColdkey({ walletPath, wallet: 'env', env, kdf: TEST_KDF });
    expect(signer.address).toBe(address);
    signer.lock();
  });

  it('tells the user to re-import legacy Ansible Vault and Fernet coldkeys', async () => {
    const walletPath = tmp();
    await writeColdkey({ walletPath, wallet: 'vault', mnemonic: DEV_MNEMONIC_A, rawColdkey: '$ANSIBLE_VAULT;1.1;AES256\n3635' });
    await writeColdkey({ walletPath, wallet: 'fernet', mnemonic: DEV_MNEMONIC_A, rawColdkey: 'gAAAAABkZmVybmV0' });
    for (const wallet of ['vault', 'fernet']) {
      const e = await failure(unlockColdkey({ walletPath, wallet, password: 'x' }));
      expect(e.code).toBe('wallet-legacy-format');
      expect(e.message).toMatch(/btcli w regen_coldkey/);
    }
    expect(readColdkeyInfo({ walletPath, wallet: 'fernet' }).encryption).toBe('fernet');
  });

  it('opens a plaintext coldkey without a password and refuses one that contradicts coldkeypub.txt', async () => {
    const walletPath = tmp();
    const { address } = await writeColdkey({ walletPath, wallet: 'plain', mnemonic: DEV_MNEMONIC_A });
    const s = await unlockColdkey({ walletPath, wallet: 'plain' });
    expect(s.address).toBe(address);
    s.lock();
    writeFileSync(join(walletPath, 'plain', 'coldkey'), keyfileJson(DEV_MNEMONIC_B).json);
    expect((await failure(unlockColdkey({ walletPath, wallet: 'plain' }))).message).toMatch(/regen_coldkeypub/);
  });
});
