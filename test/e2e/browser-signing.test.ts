// Registration signed in a browser wallet, end to end: a headless engine on the dev chain, Chromium with
// the wallet-extension double (test/doubles/wallet-extension.ts: polkadot{.js}'s injected API over a real
// sr25519 key), and both ways the UI offers: the engine's one-shot signing page (renderer/sign.html, built
// by Vite) and the headless UI signing in place. Both go through @polkadot/extension-dapp; the dev chain
// verifies the signature and registers. Then the hostile cases on the page: no extension, a refusal in the
// popup, an account the engine did not ask for. Needs the built renderer (npm run build:renderer).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { polkadot } from '../../electron/engine/lib/polkadot.ts';
import type { KeyringPair } from '@polkadot/keyring/types';
import { defaultSettings, type Settings } from '../../shared/settings.ts';
import { dataPaths } from '../../electron/engine/lib/paths.ts';
import { createHotkey } from '../../electron/engine/wallet/hotkey-create.ts';
import { PolkadotChainClient } from '../../electron/engine/chain/polkadot-chain-client.ts';
import { openSigningPage } from '../../electron/engine/wallet/browser-signing-session.ts';
import { startDevChain, type RunningDevChain } from '../doubles/dev-chain/index.ts';
import { installWalletExtension, type WalletExtensionOptions } from '../doubles/wallet-extension.ts';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { ensureRendererBuilt } from '../helpers/desktop-main.ts';
import { startHeadlessChild, type HeadlessChild } from '../helpers/headless-process.ts';
import { openSetupStage } from '../helpers/setup-stage.ts';
import { signerPayload } from '../helpers/signer-payload.ts';
import { runAxe } from '../helpers/axe.ts';

const { Keyring } = polkadot('@polkadot/keyring');
const { cryptoWaitReady } = polkadot('@polkadot/util-crypto');

const TAO = 1_000_000_000n;
const OWNER_HOTKEY = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';
const WAIT = { timeout: 60_000 };
/** A well-formed payload for the hostile cases (never signed there). */
const PAYLOAD = signerPayload('');

let dev: RunningDevChain;
let client: PolkadotChainClient;
let browser: Browser;
let coldkey: KeyringPair;
let other: KeyringPair;
const engines: HeadlessChild[] = [];

beforeAll(async () => {
  await cryptoWaitReady();
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  coldkey = keyring.addFromUri('//EngyE2eBrowserColdkey');
  other = keyring.addFromUri('//EngyE2eBrowserOther');
  await ensureRendererBuilt();
  // 500 ms blocks: the transaction's era (about 64 blocks) outlives a slow page on a loaded machine.
  dev = await startDevChain({
    port: 0,
    blockMs: 500,
    startBlocks: 3,
    seed: { subnets: [{ netuid: 53, burnRao: TAO, ownerHotkey: OWNER_HOTKEY, neurons: [{ hotkey: OWNER_HOTKEY }] }], balances: { [coldkey.address]: 5n * TAO, [other.address]: TAO / 10n } },
  });
  // The chain's own types: the double signs exactly the payload the dev chain checks.
  client = await PolkadotChainClient.connect({ endpoint: dev.url, connectTimeoutMs: 20_000, submitTimeoutMs: 30_000 });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  for (const e of engines.splice(0)) await e.stop();
  await client?.close();
  await dev?.close();
});

/** A headless engine whose selected hotkey (in a wallet with no coldkey file) is not registered yet. */
async function engineWithHotkey(hotkey: string): Promise<{ engine: HeadlessChild; hotkeyAddress: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engy-browser-signing-'));
  const walletPath = join(dataDir, 'wallets');
  const { ss58Address } = await createHotkey({ walletPath, wallet: 'rig', hotkey, source: { kind: 'generate' } });
  const d = defaultSettings();
  const settings: Settings = { ...d, role: 'validate', wallet: { path: walletPath, name: 'rig', hotkey }, validating: { ...d.validating, chainUrl: dev.url } };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(dataPaths(dataDir).settings, JSON.stringify(settings));
  const engine = await startHeadlessChild({ ...process.env }, [], dataDir);
  engines.push(engine);
  return { engine, hotkeyAddress: ss58Address };
}

async function contextWith(
  extension: Omit<WalletExtensionOptions, 'registry'> | null,
  colorScheme: 'dark' | 'light' = 'dark',
): Promise<{ context: BrowserContext; popups: () => Array<{ answer: string; address: string }> }> {
  const context = await browser.newContext({ colorScheme, viewport: { width: 1280, height: 900 } });
  if (!extension) return { context, popups: () => [] };
  const double = await installWalletExtension(context, { ...extension, registry: client.api.registry });
  return { context, popups: () => double.popups };
}

/** Setup → Registration, with a price cap typed in, then "Sign in a browser wallet". */
async function startBrowserRegistration(page: Page, engine: HeadlessChild): Promise<void> {
  await page.goto(engine.url);
  await page.getByRole('button', { name: 'Setup', exact: true }).click();
  await openSetupStage(page, 'registration', 'registration-needs', 60_000);
  const cap = page.getByRole('textbox', { name: 'Price cap in TAO' });
  await cap.fill('1.5');
  await page.getByRole('button', { name: 'Sign in a browser wallet' }).click();
}

async function registeredUid(hotkey: string): Promise<number | null> {
  return (await client.neuron(53, hotkey)).uid;
}

async function axeClean(page: Page): Promise<void> {
  const res = await runAxe(page);
  expect(res.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

describe('browser-wallet registration through @polkadot/extension-dapp', () => {
  it("the signing page lists the extension's account, signs register_limit, and the dev chain registers the hotkey", { timeout: 300_000 }, async () => {
    const { engine, hotkeyAddress } = await engineWithHotkey('viapage');
    const { context, popups } = await contextWith({
      accounts: [
        { pair: coldkey, name: 'my coldkey' },
        { pair: other, name: 'savings', ss58Prefix: 0 },
      ],
    });
    try {
      const ui = await context.newPage();
      await startBrowserRegistration(ui, engine);
      // Headless: nothing opens a browser for the engine; the UI offers the page's link.
      const link = ui.getByRole('link', { name: 'Open the signing page' });
      await link.waitFor(WAIT);
      const href = (await link.getAttribute('href'))!;
      expect(href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sign\/[\w-]+\/$/);

      const tab = await context.newPage();
      await tab.goto(href);
      // Both accounts listed (the one the extension shows under prefix 0 re-encoded to 42), each with its balance.
      await tab.waitForFunction(
        () => document.querySelectorAll('.account').length === 2 && [...document.querySelectorAll('.funds')].every((e) => !/looking/.test(e.textContent ?? '')),
        undefined,
        WAIT,
      );
      const labels = await tab.$$eval('.account', (els) => els.map((e) => e.textContent ?? ''));
      expect(labels.join('\n')).toContain(coldkey.address);
      expect(labels.join('\n')).toContain(other.address);
      expect(labels.find((l) => l.includes(other.address))).toMatch(/less than the cost/);
      expect(await tab.textContent('#cost')).toMatch(/Registration costs 1(\.0+)? τ right now/);
      for (const scheme of ['dark', 'light'] as const) {
        await tab.emulateMedia({ colorScheme: scheme });
        for (const width of [1280, 800]) {
          await tab.setViewportSize({ width, height: 900 });
          await tab.screenshot({ path: screenshotPath(`signing-page-pick-${width}-${scheme}`), fullPage: true });
        }
        await axeClean(tab);
      }

      await tab.locator('.account', { hasText: coldkey.address }).locator('input').check();
      await tab.getByRole('button', { name: 'Sign with this account' }).click();
      await tab.waitForSelector('#status.ok', WAIT);
      expect(popups()).toEqual([expect.objectContaining({ kind: 'payload', address: coldkey.address, answer: 'approve' })]);
      await ui.getByText(/Registered as uid \d+ in block \d+/).waitFor(WAIT);
      expect(dev.state.applied.at(-1)).toMatchObject({ signer: coldkey.address, method: 'register_limit', error: null });
      await expect.poll(() => registeredUid(hotkeyAddress), { timeout: 30_000 }).not.toBeNull();
      await tab.screenshot({ path: screenshotPath('signing-page-done-800-light'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('the headless UI in a browser with the extension signs in place, and the dev chain registers the hotkey', { timeout: 300_000 }, async () => {
    const { engine, hotkeyAddress } = await engineWithHotkey('inplace');
    const { context, popups } = await contextWith({ accounts: [{ pair: coldkey, name: 'my coldkey' }] }, 'light');
    try {
      const ui = await context.newPage();
      await startBrowserRegistration(ui, engine);
      const here = ui.getByTestId('in-place-signing');
      await here.waitFor(WAIT);
      await here.getByRole('radio').first().check();
      for (const width of [1280, 800]) {
        await ui.setViewportSize({ width, height: 900 });
        await here.screenshot({ path: screenshotPath(`registration-in-place-${width}-light`) });
      }
      await here.getByRole('button', { name: 'Sign here with this account' }).click();
      await ui.getByText(/Registered as uid \d+ in block \d+/).waitFor(WAIT);
      expect(popups()).toEqual([expect.objectContaining({ kind: 'payload', address: coldkey.address, answer: 'approve' })]);
      expect(dev.state.applied.at(-1)).toMatchObject({ signer: coldkey.address, method: 'register_limit', error: null });
      await expect.poll(() => registeredUid(hotkeyAddress), { timeout: 30_000 }).not.toBeNull();
    } finally {
      await context.close();
    }
  });

  it('a refusal in the popup is said on the page and in the UI, and nothing reaches the chain', { timeout: 300_000 }, async () => {
    const { engine, hotkeyAddress } = await engineWithHotkey('refused');
    const { context, popups } = await contextWith({ accounts: [{ pair: coldkey, name: 'my coldkey' }], answer: () => 'reject' });
    try {
      const applied = dev.state.applied.length;
      const ui = await context.newPage();
      await startBrowserRegistration(ui, engine);
      const link = ui.getByRole('link', { name: 'Open the signing page' });
      await link.waitFor(WAIT);
      const tab = await context.newPage();
      await tab.goto((await link.getAttribute('href'))!);
      await tab.getByRole('button', { name: 'Sign with this account' }).click();
      await tab.getByText(/You declined in polkadot-js: nothing was signed or sent/).waitFor(WAIT);
      expect(popups()).toEqual([expect.objectContaining({ answer: 'reject' })]);
      // The engine ends the registration at once with the page's words; the chain saw nothing.
      await ui.getByText(/The browser wallet did not sign \(declined in polkadot-js\): nothing was sent/).waitFor(WAIT);
      await tab.screenshot({ path: screenshotPath('signing-page-declined-1280-dark'), fullPage: true });
      expect(dev.state.applied.length).toBe(applied);
      expect(await registeredUid(hotkeyAddress)).toBeNull();
    } finally {
      await context.close();
    }
  });
});

describe('the signing page when the browser cannot sign what the engine asks', () => {
  it("with no wallet extension, says what to install; Cancel ends the engine's request", { timeout: 120_000 }, async () => {
    const { context } = await contextWith(null);
    const page = await openSigningPage({ description: 'Register hotkey 5F… on subnet 53 for at most 1.5 τ', costTao: '1.0000 τ' });
    try {
      const tab = await context.newPage();
      await tab.goto(page.url);
      await tab.getByText(/No wallet extension found in this browser\. Install polkadot\{\.js\}/).waitFor(WAIT);
      for (const scheme of ['dark', 'light'] as const) {
        await tab.emulateMedia({ colorScheme: scheme });
        await tab.setViewportSize({ width: 800, height: 700 });
        await tab.screenshot({ path: screenshotPath(`signing-page-no-extension-800-${scheme}`), fullPage: true });
        await axeClean(tab);
      }
      // Cancel tells the engine: its registration ends instead of waiting for the page to time out.
      await tab.getByRole('button', { name: 'Cancel' }).click();
      await expect(page.account).rejects.toMatchObject({ code: 'wallet-locked' });
    } finally {
      page.cancel();
      await context.close();
    }
  });

  it('an account the engine did not ask for is never signed for: the page names the one it needs', { timeout: 120_000 }, async () => {
    // The extension holds only `other`; the engine asks for `coldkey`.
    const { context, popups } = await contextWith({ accounts: [{ pair: other, name: 'savings' }] });
    const page = await openSigningPage({ description: 'Register hotkey 5F… on subnet 53', address: coldkey.address });
    try {
      const tab = await context.newPage();
      await tab.goto(page.url);
      const signed = page.sign({ ...PAYLOAD, address: coldkey.address });
      signed.catch(() => undefined);
      await tab.getByText(new RegExp(`None of your wallet extensions shares ${coldkey.address}`)).waitFor(WAIT);
      expect(popups()).toEqual([]);
      await tab.screenshot({ path: screenshotPath('signing-page-wrong-account-1280-dark'), fullPage: true });
      await axeClean(tab);
      await tab.getByRole('button', { name: 'Cancel' }).click();
      await expect(signed).rejects.toMatchObject({ code: 'wallet-locked' });
      expect(popups()).toEqual([]);
    } finally {
      page.cancel();
      await context.close();
    }
  });
});
