// The setup walk over the desktop transport: Chromium runs the built renderer, its window.engy is
// bridged to the REAL preload's object in a booted desktop main (stand-in electron), and the engine
// runs in its utility process against the simulated network. The profile is blank (first run): the
// walk chooses role, lets hardware judge a faked 2x RTX 4090 rig, detects the Python runtime with
// sglang (fake python), checks a checkpoint, takes a registered hotkey, has a miner key refused then
// admitted by the gateway double, and starts mining from the Mine page, all through IPC.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { FAKE_NVIDIA_SMI_DIR } from '../helpers/fake-nvidia-smi.ts';
import { desktopEnv, ensureMainBuilt, ensureRendererBuilt, REPO, startDesktopMain, waitUntil, type DesktopMain } from '../helpers/desktop-main.ts';
import { bridgeDesktopTransport, reloadDesktopPage, serveRenderer } from '../helpers/desktop-page.ts';
import { blankProfile, setupSteps } from '../helpers/setup-steps.ts';
import { ProcessRegistry } from '../../electron/engine/serve/process-registry.ts';
import { CHECKPOINT_TINY } from '../doubles/fake-sglang/spawn.ts';
import { HONEST_KEY } from '../doubles/sim-network/demo-data-dir.ts';
import { startSimulatedNetwork, type SimulatedNetwork } from '../doubles/sim-network/sim-network.ts';

const FAKE_PYTHON = join(import.meta.dirname, '..', 'doubles', 'fake-python', 'python');

describe('setup walk over the desktop transport (IPC e2e mode)', () => {
  const root = mkdtempSync(join(tmpdir(), 'engy-desktop-ipc-setup-'));
  // Where the stand-in's app.getPath('userData') is: XDG_CONFIG_HOME/<package name>.
  const dataDir = join(root, 'config', 'engy-panel');
  // `python3` and `python` are the fake with sglang: the runtime detection must find it on its own.
  const bin = join(root, 'bin');
  let net: SimulatedNetwork;
  let main: DesktopMain;
  let site: Awaited<ReturnType<typeof serveRenderer>>;
  let browser: Browser;
  let page: Page;
  const { stage, badge, open } = setupSteps(() => page);

  beforeAll(async () => {
    await ensureMainBuilt();
    await ensureRendererBuilt();
    net = await startSimulatedNetwork({ dataDir, epochMs: 8_000, blockMs: 250, pollSeconds: 2 });
    blankProfile(dataDir);
    mkdirSync(bin);
    for (const name of ['python3', 'python']) symlinkSync(FAKE_PYTHON, join(bin, name));
    const env = desktopEnv(root, { PATH: [bin, FAKE_NVIDIA_SMI_DIR, process.env.PATH ?? ''].join(delimiter), FAKE_NVIDIA_SMI: '2x4090', FAKE_PYTHON_NODE: process.execPath });
    main = startDesktopMain(join(REPO, 'dist', 'electron', 'main.js'), env);
    await waitUntil(async () => (await main.call<{ windows: Array<{ visible: boolean }> }>('state')).windows.some((w) => w.visible), 120_000, `the desktop window\n${main.output().slice(-2000)}`);
    site = await serveRenderer(join(REPO, 'dist-renderer'));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.emulateMedia({ colorScheme: 'dark' });
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await bridgeDesktopTransport(page, main);
    await page.goto(site.url);
    await reloadDesktopPage(main);
  }, 600_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    // Quit as a user does: the engine stops the serve it started. Engines run detached (they outlive a killed app
    // until its next start reaps them), so whatever is still recorded alive after the quit is reaped here and named.
    const quitInTime = await main?.quit(90_000);
    const left = await new ProcessRegistry(join(dataDir, 'serve', 'engines.json')).reapLeftovers(2_000);
    await site?.close();
    await net?.stop();
    rmSync(root, { recursive: true, force: true });
    expect({ quitInTime, left }, 'the app quit by itself and stopped its serve').toEqual({ quitInTime: true, left: [] });
  });

  it('role, hardware, runtime with sglang detected, checkpoint', { timeout: 240_000 }, async () => {
    await page.getByText('SIMULATED NETWORK').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('connection').textContent()).toMatch(/connected/);
    await badge('role', 'current').waitFor({ timeout: 60_000 });
    await page.getByRole('group', { name: 'Role' }).getByRole('button', { name: /^Mine/ }).click();
    // Ready, or (on a disk without room for the ~80 GiB download) ready once the checkpoint fits.
    await stage('hardware')
      .getByText(/^(Ready to mine\.|The GPUs can mine, but the disk cannot hold the checkpoint yet)/)
      .waitFor({ timeout: 60_000 });
    await open('serve');
    await page
      .getByTestId('runtime-python')
      .getByText(/sglang 0\.5\.12\.post1 found/)
      .waitFor({ timeout: 60_000 });
    await page.getByTestId('runtime-python').click();
    await page.getByTestId('folder-check').waitFor({ timeout: 30_000 });
    await page.getByRole('textbox', { name: 'Checkpoint folder' }).fill(CHECKPOINT_TINY);
    await page.getByRole('button', { name: 'Use this folder' }).click();
    await stage('serve').getByText('checkpoint complete').waitFor({ timeout: 60_000 });
    await badge('serve', 'done').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: screenshotPath('desktop-ipc-setup-serve-1280-dark'), fullPage: true });
  });

  it('a registered hotkey, then a miner key refused and admitted by the gateway', { timeout: 240_000 }, async () => {
    await open('hotkey');
    // By the button's own name: a row's name holds the hotkey's random address, which can contain "rig" (CI, 2026-12-05).
    await stage('hotkey').getByRole('button', { name: 'Use demo/rig', exact: true }).click();
    await badge('hotkey', 'done').waitFor({ timeout: 30_000 });
    // Registration checks itself once a hotkey is chosen: a registered hotkey completes the step.
    await stage('registration')
      .getByText(/uid \d+ on subnet 53/)
      .waitFor({ timeout: 60_000 });
    await badge('registration', 'done').waitFor({ timeout: 30_000 });

    await open('minerkey');
    await page.getByRole('textbox', { name: 'Miner key' }).fill('mk-not-issued-to-anyone-9999');
    await page.getByRole('button', { name: 'Save and check' }).click();
    await page.getByText(/The gateway says: "unknown miner key"/).waitFor({ timeout: 60_000 });
    await badge('minerkey', 'current').waitFor({ timeout: 30_000 });
    expect(await page.content()).not.toContain('mk-not-issued-to-anyone-9999');
    await page.getByRole('textbox', { name: 'Miner key' }).fill(HONEST_KEY);
    await page.getByRole('button', { name: 'Save and check' }).click();
    await badge('minerkey', 'done').waitFor({ timeout: 60_000 });
    await badge('start', 'current').waitFor({ timeout: 30_000 });
  });

  it('starts on the Mine page and mines; Setup agrees while it runs', { timeout: 360_000 }, async () => {
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    await page.getByTestId('preflight-summary').getByText('all clear').waitFor({ timeout: 60_000 });
    await page.getByTestId('mine-toggle').click();
    await page.getByTestId('miner-phase').getByText('earning').waitFor({ timeout: 300_000 });
    await page.screenshot({ path: screenshotPath('desktop-ipc-setup-mining-1280-dark'), fullPage: true });
    await page.getByRole('button', { name: 'Setup', exact: true }).click();
    for (const id of ['role', 'hardware', 'serve', 'coldkey', 'hotkey', 'registration', 'minerkey', 'start']) await badge(id, 'done').waitFor({ timeout: 30_000 });
  });
});
