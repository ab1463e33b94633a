import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { startHeadlessChild, type HeadlessChild } from '../helpers/headless-process.ts';
import { noNvidiaEnv } from '../helpers/fake-nvidia-smi.ts';
import { runAxe } from '../helpers/axe.ts';

describe('Logs, diagnostics, settings and honest empty states (Chromium, a CPU-only machine)', () => {
  let engine: HeadlessChild;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    engine = await startHeadlessChild(noNvidiaEnv());
    browser = await launchBrowser();
    // A context of its own (not browser.newPage): axe-core's playwright builder needs one.
    page = await (await browser.newContext({ viewport: { width: 1360, height: 1000 } })).newPage();
    await page.goto(engine.url);
  });
  afterAll(async () => {
    await browser?.close();
    await engine?.stop();
  });

  it('a machine without NVIDIA says so and points to the validator role', async () => {
    await page.getByTestId('stage-hardware').getByRole('button').click();
    await page.getByTestId('verdict').waitFor();
    expect(await page.getByTestId('verdict').textContent()).toBe('Cannot mine on this hardware');
    expect(await page.locator('[aria-label="Reasons"]').textContent()).toMatch(/No NVIDIA GPU found.*validator/);
    await page.screenshot({ path: screenshotPath('setup-no-gpu'), fullPage: true });
  });

  it('searches the logs live and exports a diagnostics bundle', async () => {
    await page.getByRole('button', { name: 'Logs' }).click();
    await page.getByTestId('logview').waitFor();
    await page.getByRole('searchbox', { name: 'Search logs' }).fill('engine started');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="logview"] .logline').length >= 1);
    const lines = await page.locator('[data-testid="logview"] .logline').allTextContents();
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.every((l) => l.toLowerCase().includes('engine started'))).toBe(true);
    await page.getByRole('searchbox', { name: 'Search logs' }).fill('no line says this xyzzy');
    await page.getByText('No line matches the search.').waitFor();
    await page.getByRole('searchbox', { name: 'Search logs' }).fill('hardware');
    // The browser receives the bundle as a download, wherever it runs (not a path on the rig).
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export diagnostics' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^engy-diagnostics-.*\.json$/);
    const path = await download.path();
    expect(existsSync(path)).toBe(true);
    await page.getByTestId('diagnostics-path').waitFor();
    expect(await page.getByTestId('diagnostics-path').textContent()).toContain(download.suggestedFilename());
    const bundle = JSON.parse(readFileSync(path, 'utf8')) as { kind: string; hardware: { verdict: string }; logs: string[]; versions: Record<string, string> };
    expect(bundle.kind).toBe('engy-panel-diagnostics');
    expect(bundle.hardware.verdict).toBe('unsupported');
    expect(bundle.logs.some((l) => l.includes('engine started'))).toBe(true);
    await page.screenshot({ path: screenshotPath('logs'), fullPage: true });
  });

  it('every page renders an honest state without invented numbers', async () => {
    for (const [nav, expectText] of [
      // No role yet: the pre-flight checklist says so first, with a Fix button to Setup.
      ['Mine', 'Choose Mine (or Both) in Setup first.'],
      ['Validate', 'Choose Validate (or Both) in Setup first.'],
      ['Earnings', 'No hotkey yet'],
      ['History', 'No request recorded'],
      ['Settings', 'Appearance'],
    ] as const) {
      await page.getByRole('button', { name: nav, exact: true }).click();
      await page.getByText(expectText).first().waitFor();
      await page.screenshot({ path: screenshotPath(`empty-${nav.toLowerCase()}`), fullPage: true });
    }
  });

  it('switches to the dark theme and keeps it after a reload', async () => {
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await page.getByRole('combobox').first().selectOption('dark');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await page.reload();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await page.screenshot({ path: screenshotPath('settings-dark'), fullPage: true });
  });
  it('sends alerts to a chat webhook: saved masked, tested, shown by host only (800 px, both themes)', async () => {
    const posts: string[] = [];
    const hook = createServer((req, res) => {
      let b = '';
      req.on('data', (d: Buffer) => (b += d.toString()));
      req.on('end', () => {
        posts.push(b);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    const host = `127.0.0.1:${(hook.address() as AddressInfo).port}`;
    try {
      await page.setViewportSize({ width: 800, height: 1000 });
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      const card = page.getByTestId('alert-webhook');
      await card.getByLabel('Webhook URL').fill(`http://${host}/hooks/private-token-91`);
      await card.getByRole('button', { name: 'Save' }).click();
      await card.getByText(`Posting to ${host}.`).waitFor();
      expect(await card.getByLabel('Webhook URL').inputValue()).toBe('');
      await card.getByRole('button', { name: 'Send a test' }).click();
      await card.getByText(`taken by ${host} (HTTP 204)`, { exact: false }).waitFor();
      expect(posts).toHaveLength(1);
      expect(JSON.parse(posts[0]!) as { title: string }).toMatchObject({ title: 'Test alert' });
      expect(await page.content()).not.toContain('private-token-91');
      for (const theme of ['dark', 'light'] as const) {
        await page.getByRole('combobox').first().selectOption(theme);
        await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
        await card.scrollIntoViewIfNeeded();
        await card.screenshot({ path: screenshotPath(`settings-webhook-800-${theme}`) });
      }
      const axe = await runAxe(page, { include: '[data-testid="alert-webhook"]' });
      expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);
    } finally {
      await new Promise<void>((r) => hook.close(() => r()));
    }
  });
});
