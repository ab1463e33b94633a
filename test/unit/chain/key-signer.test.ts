import { describe, expect, it } from 'vitest';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import { apiSignerFor, keySignerFromPair, signingMessage } from '../../../electron/engine/chain/key-signer.ts';
import { loadDevRuntime } from '../../doubles/dev-chain/runtime.ts';

const { Keyring } = polkadot('@polkadot/keyring');
const { hexToU8a } = polkadot('@polkadot/util');
const { blake2AsU8a, cryptoWaitReady, signatureVerify } = polkadot('@polkadot/util-crypto');

describe('KeySigner adapter', () => {
  it('hashes payloads over 256 bytes and signs short ones as they are', () => {
    const short = new Uint8Array(256).fill(1);
    const long = new Uint8Array(257).fill(1);
    expect(signingMessage(short)).toBe(short);
    expect(signingMessage(long)).toEqual(blake2AsU8a(long, 256));
  });

  it('signs a set_weights payload as an sr25519 MultiSignature that verifies for the key', async () => {
    await cryptoWaitReady();
    const pair = new Keyring({ type: 'sr25519', ss58Format: 42 }).addFromUri('//Engy//Unit');
    const { registry, decorated } = loadDevRuntime();
    const call = decorated.tx['subtensorModule']?.['setWeights']?.(53, [0, 3], [65535, 32768], 0);
    // CHAIN.md 3: the verified call data of setWeights(53, [0,3], [65535,32768], 0).
    expect(call?.toHex()).toBe('0x07003500080000030008ffff00800000000000000000');
    const payload = registry.createType('SignerPayload', {
      address: pair.address,
      method: call?.toHex(),
      nonce: 4,
      era: '0x00',
      genesisHash: `0x${'11'.repeat(32)}`,
      blockHash: `0x${'11'.repeat(32)}`,
      specVersion: 424,
      transactionVersion: 1,
      version: 4,
      signedExtensions: registry.signedExtensions,
    });
    const signer = apiSignerFor(registry, keySignerFromPair(pair));
    const result = await signer.signPayload?.(payload.toPayload());
    const sig = hexToU8a(result?.signature);
    expect(sig[0]).toBe(1); // Sr25519 variant
    const bytes = registry.createType('ExtrinsicPayload', payload.toPayload(), { version: 4 }).toU8a({ method: true });
    expect(signatureVerify(bytes, sig.subarray(1), pair.address)).toMatchObject({ isValid: true, crypto: 'sr25519' });
    await expect(signer.signPayload?.({ ...payload.toPayload(), address: '5C4hrfjw9DjXZTzV3MwzrrAr9P1MJhSrvWGWqi1eSuyUpnhM' })).rejects.toThrow(/asked to sign/);
  });

  it('hands payload-signing KeySigners (browser wallets) their payload as it is', async () => {
    const seen: unknown[] = [];
    const browserLike = {
      address: '5C4hrfjw9DjXZTzV3MwzrrAr9P1MJhSrvWGWqi1eSuyUpnhM',
      sign: (): Uint8Array => {
        throw new Error('extensions cannot sign raw bytes');
      },
      signPayload: (p: unknown) => {
        seen.push(p);
        return Promise.resolve({ id: 7, signature: '0x01ab' as const });
      },
    };
    const signer = apiSignerFor(loadDevRuntime().registry, browserLike);
    const payload = { address: browserLike.address, method: '0x0700' } as unknown as Parameters<NonNullable<typeof signer.signPayload>>[0];
    expect(await signer.signPayload?.(payload)).toEqual({ id: 7, signature: '0x01ab' });
    expect(seen).toEqual([payload]);
  });

  it('refuses non-sr25519 pairs', async () => {
    await cryptoWaitReady();
    const ed = new Keyring({ type: 'ed25519' }).addFromUri('//Engy//Ed');
    expect(() => keySignerFromPair(ed)).toThrow(/sr25519/);
  });
});
