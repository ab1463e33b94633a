// The Mine page with a managed serve: engine state, the exact command, live GPU charts and the
// serve's log lines, with a fake sglang behind a fake Python and a fake 2x RTX 4090 nvidia-smi whose
// readings move every second and whose second card is power capped 3 s out of every 6 (2x4090-live):
// the live GPU panel updates, names the throttle and marks it on its chart (issue 28 item 3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { defaultSettings, type Settings } from '../../shared/settings.ts';
import { dataPaths } from '../../electron/engine/lib/paths.ts';
import { MinerKeyStore } from '../../electron/engine/wallet/miner-key-store.ts';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { FAKE_NVIDIA_SMI_DIR } from '../helpers/fake-nvidia-smi.ts';
import { startHeadlessChild, type HeadlessChild } from '../helpers/headless-process.ts';
import { CHECKPOINT_TINY } from '../doubles/fake-sglang/spawn.ts';
import { createHotkey } from '../../electron/engine/wallet/hotkey-create.ts';
import { startDevChain, type RunningDevChain } from '../doubles/dev-chain/index.ts';
import { devKeys, SN53 } from '../doubles/dev-chain/sn53-seed.ts';
import { runAxe } from '../helpers/axe.ts';

const FAKE_PYTHON = join(import.meta.dirname, '..', 'doubles', 'fake-python', 'python');

describe('a managed serve on the Mine page (fake python + fake 2x4090, Chromium)', () => {
  let engine: HeadlessChild;
  let browser: Browser;
  let chain: RunningDevChain;

  beforeAll(async () => {
    const bin = mkdtempSync(join(tmpdir(), 'engy-bin-'));
    for (const name of ['python3', 'python']) symlinkSync(FAKE_PYTHON, join(bin, name));
    const dataDir = mkdtempSync(join(tmpdir(), 'engy-serve-e2e-'));
    const d = defaultSettings();
    // Start's pre-flight wants a hotkey registered on subnet 53: a dev chain that knows it.
    const walletPath = join(dataDir, 'wallets');
    const { ss58Address } = await createHotkey({ walletPath, wallet: 'rig', hotkey: 'default', source: { kind: 'generate' } });
    const keys = await devKeys();
    const cold = keys.coldkey.address;
    chain = await startDevChain({
      port: 0,
      blockMs: 500,
      startBlocks: 2,
      seed: {
        subnets: [
          {
            netuid: SN53,
            ownerHotkey: keys.owner.address,
            ownerColdkey: cold,
            neurons: [
              { hotkey: keys.owner.address, coldkey: cold },
              { hotkey: ss58Address, coldkey: cold },
            ],
          },
        ],
      },
    });
    // The gateway address answers nothing here: this page is about the serve, the miner says it cannot reach it.
    const settings: Settings = {
      ...d,
      role: 'mine',
      wallet: { path: walletPath, name: 'rig', hotkey: 'default' },
      mining: { ...d.mining, runtime: 'python', checkpointDir: CHECKPOINT_TINY, gatewayUrl: 'ws://127.0.0.1:9/gw' },
      validating: { ...d.validating, chainUrl: chain.url },
    };
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(dataPaths(dataDir).settings, JSON.stringify(settings));
    new MinerKeyStore({ secretsDir: dataPaths(dataDir).secrets, env: {} }).set('mk-serve-e2e-key-0001');
    const env = { ...process.env, PATH: [bin, FAKE_NVIDIA_SMI_DIR, process.env.PATH ?? ''].join(delimiter), FAKE_NVIDIA_SMI: '2x4090-live', FAKE_PYTHON_NODE: process.execPath };
    engine = await startHeadlessChild(env, [], dataDir);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await engine?.stop();
    await chain?.close();
  });

  let page: Page;
  it('starts the engine, shows it ready with its command, charts the GPUs and logs the serve', { timeout: 120_000 }, async () => {
    page = await (await browser.newContext({ viewport: { width: 1360, height: 1400 } })).newPage();
    await page.goto(engine.url);
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    // Pre-flight: sglang found with the fake Python, the registration checked on the dev chain, all clear.
    await page.getByTestId('preflight-summary').getByText('all clear').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('preflight-check-runtime').textContent()).toMatch(/sglang .* found with/);
    await page.getByTestId('mine-toggle').click();
    const card = page.getByTestId('engine-card').first();
    await card.getByTestId('engine-state').getByText('ready').waitFor({ timeout: 90_000 });
    await card.getByText('The exact command (copyable)').click();
    const text = (await card.textContent()) ?? '';
    expect(text).toContain('sglang.launch_server');
    expect(text).toContain('--tp-size 2');
    expect(text).toContain('--enable-return-hidden-states');
    expect(text).toContain('CUDA_VISIBLE_DEVICES=0,1');
    expect(text).toMatch(/Hidden-state trim\s*on/);
    // GPU samples reach the chart: its description carries a temperature and uPlot has drawn its canvas.
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('figure')].some(
          (f) => /GPU temperature, .*: .*\d+ °C/.test(f.querySelector('[role="img"]')?.getAttribute('aria-label') ?? '') && f.querySelector('canvas') !== null && !f.querySelector('.chart-empty'),
        ),
      undefined,
      { timeout: 30_000 },
    );
    expect(await page.locator('[aria-label="Miner state"]').textContent()).toMatch(/gateway|connecting|failed/i);
    expect(await page.getByTestId('mine-toggle').textContent()).toBe('Stop mining');
    await page.screenshot({ path: screenshotPath('mine-engines'), fullPage: true });
    await page.getByRole('button', { name: 'Logs', exact: true }).click();
    await page.getByRole('combobox', { name: 'Source' }).selectOption('serve:0');
    await page.locator('[data-testid="logview"] .logline', { hasText: 'fired up and ready to roll' }).first().waitFor();
  });

  it('shows each GPU live: figures that move, a power cap in words and marked on the chart', { timeout: 120_000 }, async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    const panel = page.getByTestId('gpu-live');
    await panel.waitFor({ timeout: 30_000 });
    await expect.poll(() => panel.getByTestId('gpu-card').count(), { timeout: 30_000 }).toBe(2);
    const card0 = panel.locator('[data-testid="gpu-card"][data-gpu="0"]');
    for (const f of ['power', 'util', 'fan', 'clocks', 'mem', 'temp']) expect(await card0.locator(`[data-gpu-figure="${f}"]`).textContent(), f).toMatch(/\d/);
    expect(await card0.locator('[data-gpu-figure="power"]').textContent()).toMatch(/^\d+ W of 450 W · \d+ % of the power limit$/);
    expect(await card0.locator('[data-gpu-figure="clocks"]').textContent()).toMatch(/^SM [\d,]+ MHz · memory 10,501 MHz$/);
    expect(await card0.locator('[data-gpu-figure="mem"]').textContent()).toBe('21.3 of 24.0 GiB');
    // The fake's readings move every second: the card follows (the 1 Hz pace itself is the unit lane's test).
    const first = await card0.locator('[data-gpu-figure="power"]').textContent();
    await expect.poll(() => card0.locator('[data-gpu-figure="power"]').textContent(), { timeout: 30_000 }).not.toBe(first);
    // GPU 1 is power capped 3 s of every 6: the card says so in words while it lasts...
    const card1 = panel.locator('[data-testid="gpu-card"][data-gpu="1"]');
    await expect.poll(() => card1.getByTestId('gpu-throttle').textContent(), { timeout: 30_000 }).toBe('throttled: power cap');
    await expect.poll(() => card1.getByTestId('gpu-throttle').textContent(), { timeout: 30_000 }).toBe('not throttled');
    expect(await card0.getByTestId('gpu-throttle').textContent()).toBe('not throttled');
    // ...and the chart marks each event (shaded; the same spans in words below it).
    const events = panel.getByTestId('throttle-events');
    await expect.poll(async () => Number(await events.getAttribute('data-count')), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    expect(await events.textContent()).toMatch(/^Throttling in the last 4 min: GPU 1: \d+ power-cap events\.$/);
    expect(await panel.locator('figure canvas').count()).toBeGreaterThan(0);
    for (const theme of ['dark', 'light'] as const) {
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await page.getByRole('combobox').first().selectOption(theme);
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      await page.getByRole('button', { name: 'Mine', exact: true }).click();
      await panel.waitFor({ timeout: 30_000 });
      for (const width of [1280, 800]) {
        await page.setViewportSize({ width, height: 900 });
        await page.waitForTimeout(1_500);
        // Cards wrap at 800 px: nothing scrolls sideways, neither the page nor <main> (the page scrolls inside it).
        const overflow = await page.evaluate(() => {
          const main = document.querySelector('main');
          return { page: document.documentElement.scrollWidth, main: main ? main.scrollWidth - main.clientWidth : 0 };
        });
        expect(overflow.page, `page width at ${width} px ${theme}`).toBeLessThanOrEqual(width);
        expect(overflow.main, `<main> scrolls sideways at ${width} px ${theme}`).toBeLessThanOrEqual(1);
        await panel.scrollIntoViewIfNeeded();
        await panel.screenshot({ path: screenshotPath(`mine-gpu-live-${width}-${theme}`) });
        // The whole Mine page at this width (engines, GPUs, charts, logs), grown to its content.
        const h = await page.evaluate(() => (document.querySelector('main')?.scrollHeight ?? 900) + (document.querySelector('.banner-sim')?.clientHeight ?? 0));
        await page.setViewportSize({ width, height: Math.min(Math.max(900, h), 7000) });
        await page.screenshot({ path: screenshotPath(`mine-engines-${width}-${theme}`) });
      }
      const axe = await runAxe(page, { include: '[data-testid="gpu-live"]' });
      expect(axe.violations.map((v) => `${theme} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);
    }
  });
});
