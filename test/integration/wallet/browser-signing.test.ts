// The one-shot "sign in your browser" page: HTTP guards over a real socket, then the real (Vite-built) page
// in Chromium with the wallet-extension double (test/doubles/wallet-extension.ts, a real sr25519 key in Node).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import type { KeyringPair } from '@polkadot/keyring/types';
import type { SignerPayloadJSON } from '@polkadot/types/types';
import { openSigningPage, startBrowserSigningSession } from '../../../electron/engine/wallet/browser-signing-session.ts';
import { browserColdkeySigner, browserPayloadSigner, isPayloadKeySigner, signingPageColdkeySigner } from '../../../electron/engine/wallet/browser-signer.ts';
import { signingMessage } from '../../../electron/engine/chain/key-signer.ts';
import { AppFailure } from '../../../shared/errors.ts';
import { installWalletExtension } from '../../doubles/wallet-extension.ts';
import { launchBrowser } from '../../helpers/browser.ts';
import { ensureRendererBuilt } from '../../helpers/desktop-main.ts';
import { signerPayload } from '../../helpers/signer-payload.ts';

const { Keyring } = polkadot('@polkadot/keyring');
const { TypeRegistry } = polkadot('@polkadot/types');
const { u8aToHex } = polkadot('@polkadot/util');
const { cryptoWaitReady, signatureVerify } = polkadot('@polkadot/util-crypto');

let coldkey: KeyringPair;
let other: KeyringPair;
let browser: Browser;

beforeAll(async () => {
  await cryptoWaitReady();
  coldkey = new Keyring({ type: 'sr25519', ss58Format: 42 }).addFromUri('//EngyBrowserColdkey');
  other = new Keyring({ type: 'sr25519', ss58Format: 42 }).addFromUri('//EngyBrowserOther');
  browser = await launchBrowser();
  // The page the engine serves is the built one (dist-renderer/signing).
  await ensureRendererBuilt();
}, 300_000);
afterAll(async () => {
  await browser?.close();
});

/** Checks a signature the way the chain does: over the SCALE ExtrinsicPayload the extension signed. */
function verifies(p: SignerPayloadJSON, signature: string, address: string): boolean {
  const registry = new TypeRegistry();
  registry.setSignedExtensions(p.signedExtensions);
  const bytes = registry.createType('ExtrinsicPayload', p, { version: p.version }).toU8a({ method: true });
  return signatureVerify(signingMessage(bytes), signature, address).isValid;
}

describe('browser signing session', () => {
  it('serves only its token path on its own Host, checks Origin, and closes after one signature', async () => {
    const s = await startBrowserSigningSession({ address: coldkey.address, payload: signerPayload(coldkey.address), description: 'Register hotkey on subnet 53' });
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
    const s = await startBrowserSigningSession({ address: coldkey.address, payload: signerPayload(coldkey.address), description: 'x', verify: () => false });
    const origin = new URL(s.url).origin;
    const r = await fetch(`${s.url}signature`, { method: 'POST', headers: { origin }, body: JSON.stringify({ signature: u8aToHex(new Uint8Array(65)) }) });
    expect(r.status).toBe(422);
    s.cancel();
    await expect(s.result).rejects.toMatchObject({ code: 'wallet-locked', message: expect.stringMatching(/nothing was sent/) });
  });

  it('signs through the real page in Chromium with an injected wallet extension', async () => {
    const context = await browser.newContext();
    try {
      await installWalletExtension(context, { accounts: [{ pair: coldkey, name: 'coldkey' }] });
      const page = await context.newPage();
      const signer = browserPayloadSigner({
        address: coldkey.address,
        describe: () => 'Register hotkey 5F… on subnet 53 for at most 1 τ',
        open: (url) => void page.goto(url),
        verify: (payload, sig) => verifies(payload, sig, coldkey.address),
      });
      const { signature } = await signer.signPayload(signerPayload(coldkey.address));
      expect(verifies(signerPayload(coldkey.address), signature, coldkey.address)).toBe(true);
      await page.waitForSelector('#status.ok');
      expect(await page.textContent('#description')).toBe('Register hotkey 5F… on subnet 53 for at most 1 τ');
    } finally {
      await context.close();
    }
  });
});

/** The extension holds both keys and shows them under another SS58 prefix (as polkadot{.js} set to Polkadot does). */
async function twoAccountExtension(context: import('playwright-core').BrowserContext, accounts: KeyringPair[], shownPrefix: number): Promise<void> {
  await installWalletExtension(context, { accounts: accounts.map((pair, i) => ({ pair, name: `account ${i + 1}`, ss58Prefix: shownPrefix })) });
}

describe('signing page where the user picks the account', () => {
  it("lists the extension's accounts with balances against the cost, preselects, and signs with the picked one", async () => {
    const context = await browser.newContext();
    try {
      await twoAccountExtension(context, [coldkey, other], 0);
      const page = await openSigningPage({
        description: 'Register hotkey 5F… on subnet 53 for at most 1.05 τ',
        preselect: other.address,
        costTao: '1.0000 τ',
        fundsOf: async (a) => (a === coldkey.address ? { balanceTao: '0.2000 τ', enough: false } : a === other.address ? { balanceTao: '3.0000 τ', enough: true } : null),
      });
      const tab = await context.newPage();
      await tab.goto(page.url);
      await tab.waitForFunction(() => [...document.querySelectorAll('.funds')].every((e) => !/looking/.test(e.textContent ?? '')) && document.querySelectorAll('.account').length === 2);
      const labels = await tab.$$eval('.account', (els) => els.map((e) => e.textContent ?? ''));
      expect(labels[0]).toMatch(/account 1.*0\.2000 τ \(less than the cost\)/s);
      expect(labels[1]).toMatch(/account 2.*3\.0000 τ/s);
      expect(await tab.textContent('#cost')).toMatch(/Registration costs 1\.0000 τ/);
      // The preselection matched although the extension shows another prefix; the user picks account 1 instead.
      expect(await tab.$$eval('input[name=account]', (els) => els.map((e) => (e as HTMLInputElement).checked))).toEqual([false, true]);
      await tab.check('input[name=account][value="0"]');
      await tab.click('text=Sign with this account');
      const chosen = await page.account;
      expect(chosen).toBe(coldkey.address);
      const signer = signingPageColdkeySigner(page, chosen, (p, sig) => verifies(p, sig, chosen));
      const { signature } = await signer.signPayload(signerPayload(chosen));
      expect(verifies(signerPayload(chosen), signature, coldkey.address)).toBe(true);
      await tab.waitForSelector('#status.ok');
      // One signature per page.
      await expect(page.sign(signerPayload(chosen))).rejects.toThrow();
    } finally {
      await context.close();
    }
  });

  it("shows the engine's refusal on the page when the picked account cannot pay", async () => {
    const context = await browser.newContext();
    try {
      await twoAccountExtension(context, [coldkey, other], 42);
      const page = await openSigningPage({
        description: 'Register',
        costTao: '1.0000 τ',
        fundsOf: async () => {
          throw new Error('chain down');
        },
      });
      const tab = await context.newPage();
      await tab.goto(page.url);
      await tab.waitForFunction(() => [...document.querySelectorAll('.funds')].length === 2 && [...document.querySelectorAll('.funds')].every((e) => /unknown/.test(e.textContent ?? '')));
      await tab.click('text=Sign with this account');
      expect(await tab.textContent('#status')).toMatch(/Pick an account first/);
      await tab.check('input[name=account][value="1"]');
      await tab.click('text=Sign with this account');
      expect(await page.account).toBe(other.address);
      page.fail(new AppFailure('chain-rejected', 'Coldkey has 0.2 τ, less than the 1 τ registration costs: add TAO and try again.'));
      await tab.waitForFunction(() => /add TAO and try again/.test(document.getElementById('status')?.textContent ?? ''));
      await expect(page.sign(signerPayload(other.address))).rejects.toThrow(/closed|add TAO/);
    } finally {
      await context.close();
    }
  });

  it('refuses hostile requests: junk accounts, early signatures, lookups beyond the cap, a second pick', async () => {
    let lookups = 0;
    const page = await openSigningPage({ description: 'x', fundsOf: async () => ((lookups += 1), { balanceTao: '1 τ', enough: null }) });
    const origin = new URL(page.url).origin;
    const postJson = (path: string, body: string) => fetch(`${page.url}${path}`, { method: 'POST', headers: { origin }, body });
    expect((await postJson('account', JSON.stringify({ address: 'not-an-address' }))).status).toBe(400);
    expect((await postJson('account', JSON.stringify({ address: { toString: 1 } }))).status).toBe(400);
    expect((await postJson('account', '{"__proto__":{"address":"x"}}')).status).toBe(400);
    expect((await postJson('account', 'null')).status).toBe(400);
    expect((await postJson('account', 'x'.repeat(20_000))).status).toBe(400);
    expect((await postJson('signature', JSON.stringify({ signature: u8aToHex(new Uint8Array(65)) }))).status).toBe(409);
    expect((await fetch(`${page.url}funds?address=%00`)).status).toBe(400);
    expect((await fetch(`${page.url}funds?address=${coldkey.address}`)).status).toBe(200);
    expect((await fetch(`${page.url}funds?address=${coldkey.address}`)).status).toBe(200);
    expect(lookups).toBe(1);
    await expect(page.sign(signerPayload(coldkey.address))).rejects.toThrow(/another account/);
    const req = (await (await fetch(`${page.url}request`)).json()) as { phase: string };
    expect(req.phase).toBe('pick');
    expect((await postJson('account', JSON.stringify({ address: other.address }))).status).toBe(200);
    expect((await postJson('account', JSON.stringify({ address: coldkey.address }))).status).toBe(409);
    expect(await page.account).toBe(other.address);
    page.cancel();
    await expect(page.account).resolves.toBe(other.address);
    const closed = (await (await fetch(`${page.url}request`)).json()) as { phase: string; error: string };
    expect(closed).toMatchObject({ phase: 'failed', error: expect.stringMatching(/cancelled: nothing was sent/) });
    expect((await postJson('signature', JSON.stringify({ signature: u8aToHex(new Uint8Array(65)) }))).status).toBe(404);
  });
});

describe('answers from a UI that signs in place (SigningPage.choose/submit/decline)', () => {
  it('moves the same request as the page does, with the same refusals, and shows it in view()', async () => {
    let changes = 0;
    const page = await openSigningPage({ description: 'Register', costTao: '1 τ', preselect: other.address, onChange: () => (changes += 1) });
    expect(page.view()).toMatchObject({ phase: 'pick', address: null, payload: null, preselect: other.address, costTao: '1 τ' });
    expect(() => page.submit(u8aToHex(new Uint8Array(65)))).toThrow(expect.objectContaining({ code: 'bad-request', message: expect.stringMatching(/nothing to sign yet/) }));
    for (const junk of ['not-an-address', '', 'x'.repeat(5000), '__proto__']) expect(() => page.choose(junk), junk).toThrow(/not an SS58 address/);
    // Another prefix is the same account: normalized to 42.
    page.choose(new Keyring({ type: 'sr25519', ss58Format: 0 }).encodeAddress(coldkey.publicKey, 0));
    expect(await page.account).toBe(coldkey.address);
    expect(page.view()).toMatchObject({ phase: 'wait', address: coldkey.address });
    expect(() => page.choose(other.address)).toThrow(/already chosen/);
    const signed = page.sign(signerPayload(coldkey.address), (sig) => verifies(signerPayload(coldkey.address), sig, coldkey.address));
    expect(page.view()).toMatchObject({ phase: 'sign', payload: signerPayload(coldkey.address) });
    expect(() => page.submit('0x1234')).toThrow(/bad signature/);
    // Signed by the wrong key: refused, and the request keeps waiting.
    const wrong = new TypeRegistry();
    wrong.setSignedExtensions(signerPayload(coldkey.address).signedExtensions);
    const byOther = wrong.createType('ExtrinsicPayload', signerPayload(coldkey.address), { version: 4 }).sign(other).signature;
    expect(() => page.submit(byOther)).toThrow(expect.objectContaining({ code: 'wallet-locked', message: expect.stringMatching(/does not match/) }));
    const good = wrong.createType('ExtrinsicPayload', signerPayload(coldkey.address), { version: 4 }).sign(coldkey).signature;
    page.submit(good);
    expect(await signed).toBe(good);
    expect(page.view()).toBeNull();
    expect(() => page.decline('too late')).toThrow(/closed/);
    expect(changes).toBeGreaterThanOrEqual(3);
  });

  it('a decline ends the request with the sentence the UI shows', async () => {
    const page = await openSigningPage({ description: 'Register', address: coldkey.address });
    const signed = page.sign(signerPayload(coldkey.address));
    page.decline('declined in polkadot-js');
    await expect(signed).rejects.toMatchObject({ code: 'wallet-locked', message: expect.stringMatching(/did not sign \(declined in polkadot-js\): nothing was sent/) });
    expect(page.view()).toBeNull();
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
