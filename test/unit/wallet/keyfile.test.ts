import { describe, expect, it, beforeAll } from 'vitest';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import { btwalletPrivateToPolkadot, detectEncryption, keyfileAddress, parseKeyfile, polkadotSecretToBtwallet, serializeKeyfile } from '../../../electron/engine/wallet/keyfile-format.ts';
import { decodeSecretSeed, keypairFromKeyfile, keypairFromPhrase } from '../../../electron/engine/wallet/keypair-from-keyfile.ts';
import { signerFromSecret } from '../../../electron/engine/wallet/engine-signer.ts';

const { cryptoWaitReady, sr25519Verify } = polkadot('@polkadot/util-crypto');
const { hexToU8a, stringToU8a, u8aToHex } = polkadot('@polkadot/util');

// btwallet tests/test_keyfile.py (CHAIN.md 1.2).
const VECTOR = {
  mnemonic: 'old leopard transfer rib spatial phone calm indicate online fire caution review',
  secretSeed: '0xda3cf5b1e9144931a0f0db65664aab662673b099415a7f8121b7245fb0be4143',
  publicKey: '0xe4359ad3e2716c539a1d663ebd0a51bdc5c98a12e663bb4c4402db47828c9446',
  ss58Address: '5HDvhV6WDCjCKyrXqGQSDYqQAzkzabNhctmiDYEqgBC66BsX',
  privateKey: '0x1f1995bdf3a17b60626a26cfe6f564b337d46056b7a1281b64c649d592ccda0a9cffd34d9fb01cae1fba61aeed184c817442a2186d5172416729a4b54dd4b84e',
};

beforeAll(async () => {
  await cryptoWaitReady();
});

describe('btwallet keyfile format', () => {
  it('reproduces the btwallet test vector from the mnemonic, and serializes the same fields', () => {
    const kp = keypairFromPhrase(VECTOR.mnemonic);
    expect(u8aToHex(kp.publicKey)).toBe(VECTOR.publicKey);
    expect(u8aToHex(polkadotSecretToBtwallet(kp.secretKey))).toBe(VECTOR.privateKey);
    const json = parseKeyfile(serializeKeyfile({ ...kp, mnemonic: VECTOR.mnemonic, seed: hexToU8a(VECTOR.secretSeed) }));
    expect(json).toEqual({
      accountId: VECTOR.publicKey,
      publicKey: VECTOR.publicKey,
      privateKey: VECTOR.privateKey,
      secretPhrase: VECTOR.mnemonic,
      secretSeed: VECTOR.secretSeed,
      ss58Address: VECTOR.ss58Address,
    });
  });

  it('reads each secret field alone, in btwallet precedence, to the same key', () => {
    for (const only of [{ secretPhrase: VECTOR.mnemonic }, { secretSeed: VECTOR.secretSeed }, { privateKey: VECTOR.privateKey }]) {
      const kp = keypairFromKeyfile({ publicKey: VECTOR.publicKey, ss58Address: VECTOR.ss58Address, ...only });
      expect(kp && u8aToHex(kp.publicKey)).toBe(VECTOR.publicKey);
      expect(kp && u8aToHex(polkadotSecretToBtwallet(kp.secretKey))).toBe(VECTOR.privateKey);
      const signer = signerFromSecret(kp!);
      expect(signer.address).toBe(VECTOR.ss58Address);
      const msg = stringToU8a('hello');
      expect(sr25519Verify(msg, signer.sign(msg), VECTOR.publicKey)).toBe(true);
    }
    const full = keypairFromKeyfile({ ...VECTOR, secretPhrase: VECTOR.mnemonic });
    expect(full?.source).toBe('secretPhrase');
    expect(keypairFromKeyfile({ secretSeed: VECTOR.secretSeed, privateKey: VECTOR.privateKey, publicKey: VECTOR.publicKey })?.source).toBe('secretSeed');
  });

  it('converts private keys both ways', () => {
    const kp = keypairFromPhrase(VECTOR.mnemonic);
    expect(u8aToHex(btwalletPrivateToPolkadot(hexToU8a(VECTOR.privateKey)))).toBe(u8aToHex(kp.secretKey));
  });

  it('refuses a secret that does not belong to the address in the file', () => {
    const other = 'bottom drive obey lake curtain smoke basket hold race lonely fit walk';
    expect(() => keypairFromKeyfile({ secretPhrase: other, publicKey: VECTOR.publicKey })).toThrow(/does not derive/);
    // Flip the scalar's first byte (the nonce half does not affect which public key it belongs to).
    const wrongPk = '0x00' + VECTOR.privateKey.slice(4);
    expect(() => keypairFromKeyfile({ privateKey: wrongPk, publicKey: VECTOR.publicKey })).toThrow(/does not match/);
  });

  it('returns null for a public-only keyfile and derives its address', () => {
    const pub = parseKeyfile(`{"publicKey":"${VECTOR.publicKey}","accountId":"${VECTOR.publicKey}"}`);
    expect(keypairFromKeyfile(pub)).toBeNull();
    expect(keyfileAddress(pub)).toBe(VECTOR.ss58Address);
  });

  it('accepts the raw-UTF-8 secretSeed quirk', () => {
    const raw = 'abcdefghijklmnopqrstuvwxyz012345';
    expect(u8aToHex(decodeSecretSeed(`0x${raw}`)!)).toBe(u8aToHex(stringToU8a(raw)));
    expect(decodeSecretSeed('0x1234')).toBeNull();
  });

  it('derives sp-core URIs like btwallet create_from_uri', () => {
    // //Alice = the well-known dev account.
    expect(signerFromSecret(keypairFromPhrase('//Alice')).address).toBe('5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY');
  });

  it('detects envelopes by prefix', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(detectEncryption(enc('$NACLxxxxxxxx'))).toBe('nacl');
    expect(detectEncryption(enc('$ANSIBLE_VAULT;1.1;AES256\n3131'))).toBe('ansible-vault');
    expect(detectEncryption(enc('gAAAAABkabc'))).toBe('fernet');
    expect(detectEncryption(enc(' {"a":1}'))).toBe('none');
    expect(detectEncryption(enc('garbage'))).toBe('unreadable');
  });
});
