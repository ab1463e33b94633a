// The control panel end to end in Chromium, against the simulated network: first run from a blank
// profile (role, serve, checkpoint, hotkey, registration, miner key), a denied worker with its reason,
// then mining active, a validator submission, an epoch in Earnings and the request history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { startHeadless, type RunningHeadless } from '../../electron/headless.ts';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { FAKE_NVIDIA_SMI_DIR } from '../helpers/fake-nvidia-smi.ts';
import { blankProfile } from '../helpers/setup-steps.ts';
import { CHECKPOINT_TINY } from '../doubles/fake-sglang/spawn.ts';
import { HONEST_KEY } from '../doubles/sim-network/demo-data-dir.ts';
import { startSimulatedNetwork, type SimulatedNetwork } from '../doubles/sim-network/sim-network.ts';
import { setupSteps } from '../helpers/setup-steps.ts';

describe('first run to mining, validating and earnings (Chromium + simulated network)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'engy-first-run-'));
  const savedEnv = { PATH: process.env.PATH, FAKE_NVIDIA_SMI: process.env.FAKE_NVIDIA_SMI };
  let net: SimulatedNetwork;
  let app: RunningHeadless;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    net = await startSimulatedNetwork({ dataDir, epochMs: 8_000, blockMs: 250, pollSeconds: 2 });
    blankProfile(dataDir);
    // The rig looks like 2x RTX 4090 to the hardware check (the fake nvidia-smi).
    process.env.PATH = `${FAKE_NVIDIA_SMI_DIR}${delimiter}${process.env.PATH ?? ''}`;
    process.env.FAKE_NVIDIA_SMI = '2x4090';
    app = await startHeadless({ host: '127.0.0.1', port: 0, dataDir });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
    await page.goto(app.server.url);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await net?.stop();
    process.env.PATH = savedEnv.PATH;
    if (savedEnv.FAKE_NVIDIA_SMI === undefined) delete process.env.FAKE_NVIDIA_SMI;
    else process.env.FAKE_NVIDIA_SMI = savedEnv.FAKE_NVIDIA_SMI;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const stage = (id: string) => page.getByTestId(`stage-${id}`);
  const open = async (id: string) => {
    if ((await stage(id).getByRole('button').first().getAttribute('aria-expanded')) !== 'true') await stage(id).getByRole('button').first().click();
  };

  it('walks first run: role, serve, checkpoint, hotkey, registration, miner key', { timeout: 60_000 }, async () => {
    await page.getByText('SIMULATED NETWORK').waitFor();
    // Before any choice, the Mine page lists every blocker at once and Start stays disabled.
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    await page.getByTestId('preflight-check-role').getByText('blocked').waitFor();
    expect(await page.getByTestId('preflight-check-hotkey').getAttribute('data-state')).toBe('blocked');
    expect(await page.getByTestId('preflight-check-minerkey').getAttribute('data-state')).toBe('blocked');
    expect(await page.getByTestId('mine-toggle').isDisabled()).toBe(true);
    await page.screenshot({ path: screenshotPath('preflight-blocked'), fullPage: true });
    // A Fix button goes to the exact Setup step.
    await page.getByTestId('preflight-check-role').getByRole('button').click();
    await stage('role').waitFor();
    await page.getByRole('group', { name: 'Role' }).getByRole('button', { name: /^Both/ }).click();
    await setupSteps(() => page).useExternalServe(await net.honestServe.url(), CHECKPOINT_TINY);
    // The step completes (and folds away) once the folder checks out complete.
    await stage('serve').getByText('checkpoint complete').waitFor();
    await stage('serve').locator('.badge', { hasText: 'done' }).waitFor();

    await open('hotkey');
    // By the button's own name: a row's name holds the hotkey's random address, which can contain "rig" (CI, 2026-12-05).
    await stage('hotkey').getByRole('button', { name: 'Use demo/rig', exact: true }).click();
    await stage('hotkey').locator('.badge', { hasText: 'done' }).waitFor();

    // Registration checks itself once a hotkey is chosen: a registered hotkey completes the step.
    await stage('registration')
      .getByText(/uid 1 on subnet 53, validator permit/)
      .waitFor({ timeout: 20_000 });
    await stage('registration').locator('.badge', { hasText: 'done' }).waitFor();

    // A key the gateway does not know is refused by the gateway itself, and the step stays open.
    await open('minerkey');
    await page.getByRole('textbox', { name: 'Miner key' }).fill('mk-not-issued-to-anyone-9999');
    await page.getByRole('button', { name: 'Save and check' }).click();
    await stage('minerkey')
      .getByText(/unknown miner key/)
      .first()
      .waitFor({ timeout: 20_000 });
    expect(await stage('minerkey').locator(':scope > .badge').textContent()).not.toBe('done');
    expect(await stage('minerkey').textContent()).not.toContain('mk-not-issued-to-anyone-9999');
    await page.screenshot({ path: screenshotPath('first-run'), fullPage: true });
  });

  it('blocks Start on a key the gateway denied (with its reason), then mines once the right key is in', { timeout: 240_000 }, async () => {
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    // The gateway's own deny reason stands in the pre-flight, and Start stays disabled.
    await page
      .getByTestId('preflight-check-minerkey')
      .getByText(/unknown miner key/)
      .waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('preflight-check-minerkey').getAttribute('data-state')).toBe('blocked');
    expect(await page.getByTestId('mine-toggle').isDisabled()).toBe(true);
    await page.screenshot({ path: screenshotPath('mine-denied'), fullPage: true });

    await page.getByTestId('preflight-check-minerkey').getByRole('button').click();
    await open('minerkey');
    await page.getByRole('textbox', { name: 'Miner key' }).fill(HONEST_KEY);
    await page.getByRole('button', { name: 'Save and check' }).click();
    await stage('minerkey').locator(':scope > .badge', { hasText: 'done' }).waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    await page.getByTestId('preflight-summary').getByText('all clear').waitFor({ timeout: 20_000 });
    // Rehearse qualification against the simulated rig's serve (a fake sglang) before going live.
    await page.getByTestId('rehearse').click();
    await page.getByTestId('rehearsal-verdict').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('rehearsal-verdict').textContent()).toBe('forecast: pass');
    expect(await page.getByTestId('rehearsal-forecast').textContent()).toMatch(/TTFT p99 .* of 100 s/);
    await page.screenshot({ path: screenshotPath('preflight-clear'), fullPage: true });
    await page.getByTestId('rehearsal').screenshot({ path: screenshotPath('rehearsal') });
    await page.getByTestId('mine-toggle').click();
    // Start rehearses against the serve before going live, and says what it measured.
    await page.getByTestId('live-rehearsal-verdict').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('live-rehearsal-verdict').textContent()).toBe('forecast: pass');
    await page.getByTestId('miner-phase').getByText('earning').waitFor({ timeout: 90_000 });
    expect(await page.getByTestId('earning-since').textContent()).toMatch(/^Earning since /);
    await page.getByTestId('engine-card').first().waitFor();
    await page.screenshot({ path: screenshotPath('mine-active'), fullPage: true });
  });

  it('validates: a verified epoch lands on chain and shows in the submissions table', { timeout: 90_000 }, async () => {
    await page.getByRole('button', { name: 'Validate', exact: true }).click();
    await page.getByTestId('validate-toggle').click();
    await page.getByTestId('submissions').getByText('landed').first().waitFor({ timeout: 80_000 });
    expect(await page.getByTestId('verified-epoch').textContent()).toMatch(/^#\d+$/);
    await page.screenshot({ path: screenshotPath('validate'), fullPage: true });
  });

  it('shows an epoch in Earnings and the served requests in History', { timeout: 60_000 }, async () => {
    await page.getByRole('button', { name: 'Earnings', exact: true }).click();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByTestId('epochs').waitFor({ timeout: 40_000 });
    expect(await page.getByTestId('epochs').textContent()).toMatch(/#\d+/);
    await page.screenshot({ path: screenshotPath('earnings'), fullPage: true });
    await page.getByRole('button', { name: 'History', exact: true }).click();
    await page.getByRole('heading', { name: /Requests \(\d+\)/ }).waitFor();
    expect(await page.getByRole('heading', { name: /Requests \(\d+\)/ }).textContent()).not.toBe('Requests (0)');
    await page.screenshot({ path: screenshotPath('history'), fullPage: true });
  });
});
