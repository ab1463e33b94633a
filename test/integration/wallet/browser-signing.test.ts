// The one-shot "sign in your browser" page: HTTP guards over a real socket, then the real page in Chromium
// with a wallet-extension double injected as window.injectedWeb3 (signing with a real sr25519 key in Node).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { Keyring } from '@polkadot/keyring';
import { stringToU8a, u8aConcat, u8aToHex } from '@polkadot/util';
import { cryptoWaitReady, signatureVerify } from '@polkadot/util-crypto';
import type { KeyringPair } from '@polkadot/keyring/types';
import type { SignerPayloadJSON } from '@polkadot/types/types';
import { startBrowserSigningSession } from '../../../electron/engine/wallet/browser-signing-session.ts';
import { browserColdkeySigner, browserPayloadSigner, isPayloadKeySigner } from '../../../electron/engine/wallet/browser-signer.ts';
import { launchBrowser } from '../../helpers/browser.ts';

let coldkey: KeyringPair;
let browser: Browser;

beforeAll(async () => {
  await cryptoWaitReady();
  coldkey = new Keyring({ type: 'sr25519', ss58Format: 42 }).addFromUri('//EngyBrowserColdkey');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const ZERO_HASH = `0x${'00'.repeat(32)}` as const;
const payloadFor = (address: string): SignerPayloadJSON => ({
  address,
  blockHash: ZERO_HASH,
  blockNumber: '0x00000010',
  era: '0x00',
  genesisHash: ZERO_HASH,
  method: '0x0786350000',
  nonce: '0x00000000',
  specVersion: '0x000001a8',
  tip: '0x00000000000000000000000000000000',
  transactionVersion: '0x00000001',
  signedExtensions: ['CheckNonce'],
  version: 4,
});
/** What the extension double signs: the payload JSON, so the test can verify it (a real extension signs the SCALE payload). */
const signable = (p: unknown) => stringToU8a(JSON.stringify(p));

describe('browser signing session', () => {
  it('serves only its token path on its own Host, checks Origin, and closes after one signature', async () => {
    const s = await startBrowserSigningSession({ address: coldkey.address, payload: payloadFor(coldkey.address), description: 'Register hotkey on subnet 53' });
    const url = new URL(s.url);
    expect(url.hostname).toBe('127.0.0.1');
    const page = await fetch(s.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(await page.text()).toContain('Sign with your browser wallet');
    expect((await fetch(`${url.origin}/sign/wrong-token/`)).status).toBe(404);
    expect((await fetch(`${url.origin}/sign/${url.pathname.split('/')[2]}x/request`)).status).toBe(404);
    const req = (await (await fetch(`${s.url}request`)).json()) as { address: string; description: string };
    expect(req).toMatchObject({ address: coldkey.address, description: 'Register hotkey on subnet 53' });

    const sig = u8aToHex(new Uint8Array(65).fill(1));
    const foreign = await fetch(`${s.url}signature`, { method: 'POST', headers: { origin: 'http://evil.example' }, body: JSON.stringify({ signature: sig }) });
    expect(foreign.status).toBe(403);
    const ok = await fetch(`${s.url}signature`, { method: 'POST', headers: { origin: url.origin }, body: JSON.stringify({ signature: sig }) });
    expect(ok.status).toBe(200);
    expect(await s.result).toBe(sig);
    await expect(fetch(`${s.url}request`)).rejects.toThrow();
  });

  it('refuses a signature that does not verify and keeps waiting; cancel rejects with a sentence', async () => {
    const s = await startBrowserSigningSession({ address: coldkey.address, payload: payloadFor(coldkey.address), description: 'x', verify: () => false });
    const origin = new URL(s.url).origin;
    const r = await fetch(`${s.url}signature`, { method: 'POST', headers: { origin }, body: JSON.stringify({ signature: u8aToHex(new Uint8Array(65)) }) });
    expect(r.status).toBe(422);
    s.cancel();
    await expect(s.result).rejects.toMatchObject({ code: 'wallet-locked', message: expect.stringMatching(/nothing was sent/) });
  });

  it('signs through the real page in Chromium with an injected wallet extension', async () => {
    const context = await browser.newContext();
    try {
      // MultiSignature = variant 1 (Sr25519) ‖ 64 bytes, as extensions return it.
      await context.exposeFunction('extensionDoubleSign', (payload: unknown) => u8aToHex(u8aConcat(new Uint8Array([1]), coldkey.sign(signable(payload)))));
      await context.addInitScript((address: string) => {
        // WALLET EXTENSION DOUBLE: the injectedWeb3 shape polkadot{.js} / Talisman / SubWallet expose.
        (window as unknown as { injectedWeb3: unknown }).injectedWeb3 = {
          'polkadot-js': {
            version: '0.63.1',
            enable: async () => ({
              accounts: { get: async () => [{ address, name: 'coldkey' }] },
              signer: {
                signPayload: async (p: unknown) => ({
                  id: 1,
                  signature: await (window as unknown as { extensionDoubleSign: (p: unknown) => Promise<string> }).extensionDoubleSign(p),
                }),
              },
            }),
          },
        };
      }, coldkey.address);
      const page = await context.newPage();
      const signer = browserPayloadSigner({
        address: coldkey.address,
        describe: () => 'Register hotkey 5F… on subnet 53 for at most 1 τ',
        open: (url) => void page.goto(url),
        verify: (payload, sig) => signatureVerify(signable(payload), sig, coldkey.address).isValid,
      });
      const { signature } = await signer.signPayload(payloadFor(coldkey.address));
      expect(signatureVerify(signable(payloadFor(coldkey.address)), signature, coldkey.address).isValid).toBe(true);
      await page.waitForSelector('#status.ok');
      expect(await page.textContent('#description')).toBe('Register hotkey 5F… on subnet 53 for at most 1 τ');
    } finally {
      await context.close();
    }
  });
});

describe('browserColdkeySigner', () => {
  it('is a KeySigner the chain client can recognise, and refuses raw signing', () => {
    const k = browserColdkeySigner({ address: coldkey.address, describe: () => 'x', open: () => undefined });
    expect(isPayloadKeySigner(k)).toBe(true);
    expect(isPayloadKeySigner({ address: coldkey.address, sign: () => new Uint8Array() })).toBe(false);
    expect(() => k.sign(new Uint8Array([1]))).toThrow(/signPayload/);
  });
});
