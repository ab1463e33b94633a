// The pre-flight checklist and the rig settings in Chromium (fake 2x RTX 4090, a fresh data dir):
// blockers listed with Fix buttons that land on the exact field, a URL typed without its scheme
// fixed, an out-of-range value refused with a sentence naming the field, a reset to default, the
// GPU choice reshaping the plan, and Start disabled then refused by the engine itself.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { fakeNvidiaEnv } from '../helpers/fake-nvidia-smi.ts';
import { startHeadlessChild, type HeadlessChild } from '../helpers/headless-process.ts';
import { dataPaths } from '../../electron/engine/lib/paths.ts';
import { runAxe } from '../helpers/axe.ts';

describe('pre-flight and rig settings (Chromium, fake 2x RTX 4090)', () => {
  let engine: HeadlessChild;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    engine = await startHeadlessChild(fakeNvidiaEnv('2x4090'));
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    await page.goto(engine.url);
    // Longer than startHeadlessChild's own 120 s wait, so a slow start fails there and kills its child.
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await engine?.stop();
  });

  const shots = async (name: string) => {
    for (const theme of ['dark', 'light'] as const) {
      await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
      for (const width of [1280, 800]) {
        await page.setViewportSize({ width, height: 1000 });
        await page.screenshot({ path: screenshotPath(`${name}-${width}-${theme}`), fullPage: true });
      }
    }
    await page.setViewportSize({ width: 1280, height: 1000 });
  };

  it('lists every blocker on the Mine page and the engine refuses Start with the same list', { timeout: 60_000 }, async () => {
    await page.getByRole('group', { name: 'Role' }).getByRole('button', { name: /^Mine/ }).click();
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    await page.locator('[data-testid="preflight-check-hardware"][data-state="ok"]').waitFor({ timeout: 30_000 });
    for (const id of ['runtime', 'checkpoint', 'hotkey', 'registration', 'minerkey']) expect(await page.getByTestId(`preflight-check-${id}`).getAttribute('data-state')).not.toBe('ok');
    expect(await page.getByTestId('mine-toggle').isDisabled()).toBe(true);
    await page.getByTestId('idle-gpus').waitFor();
    await shots('preflight-mine');
    // At 1280 and 800 px nothing scrolls sideways: not the page, not <main> (the page scrolls inside it), not the GPU table's box or card.
    for (const width of [1280, 800]) {
      await page.setViewportSize({ width, height: 1000 });
      const o = await page.evaluate(() => {
        const sideways = (el: Element | null | undefined) => (el ? el.scrollWidth - el.clientWidth : 0);
        const box = document.querySelector('[data-testid="idle-gpus"]')?.parentElement;
        return { page: document.documentElement.scrollWidth, main: sideways(document.querySelector('main')), box: sideways(box), card: sideways(box?.parentElement) };
      });
      expect(o.page, `page width at ${width} px`).toBeLessThanOrEqual(width);
      for (const n of [o.main, o.box, o.card]) expect(n, `sideways scroll at ${width} px: ${JSON.stringify(o)}`).toBeLessThanOrEqual(1);
      // The idle Mine page at this width in both themes: axe finds nothing serious.
      for (const theme of ['dark', 'light'] as const) {
        await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
        const axe = await runAxe(page);
        expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${width} ${theme} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`)).toEqual(
          [],
        );
      }
    }
    await page.setViewportSize({ width: 1280, height: 1000 });

    // The engine's own answer, not just the disabled button.
    const ws = new WebSocket(`${engine.origin.replace('http', 'ws')}/ws?token=${new URL(engine.url).searchParams.get('token')}`);
    await new Promise((r) => ws.once('open', r));
    const answer = await new Promise<{ ok: boolean; error?: { code: string; message: string } }>((resolve) => {
      ws.on('message', (d) => {
        const f = JSON.parse(String(d)) as { kind: string; id?: number; result?: { ok: boolean; error?: { code: string; message: string } } };
        if (f.kind === 'result' && f.id === 1) resolve(f.result!);
      });
      ws.send(JSON.stringify({ kind: 'invoke', id: 1, method: 'mining.start', req: null }));
    });
    ws.close();
    expect(answer.ok).toBe(false);
    expect(answer.error?.code).toBe('preflight-blocked');
    expect(answer.error?.message).toMatch(/^Mining cannot start until these \d are fixed: .*Serve runtime: .*Hotkey: .*Miner key: /);
  });

  it('the Validate page has its own checklist: no GPU checks, the role and hotkey blockers', { timeout: 30_000 }, async () => {
    await page.getByRole('button', { name: 'Validate', exact: true }).click();
    await page.getByTestId('preflight-validate').waitFor();
    expect(
      await page
        .getByTestId('preflight-validate')
        .locator('[data-testid^="preflight-check-"]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid'))),
    ).toEqual(['preflight-check-role', 'preflight-check-hotkey', 'preflight-check-registration']);
    expect(await page.getByTestId('validate-toggle').isDisabled()).toBe(true);
    await shots('preflight-validate');
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
  });

  it('Fix buttons land on the exact Setup step (opened) or Settings field (focused)', { timeout: 30_000 }, async () => {
    await page.getByTestId('preflight-check-hotkey').getByRole('button').click();
    await page.getByTestId('stage-hotkey').getByRole('button', { expanded: true }).first().waitFor();
    expect(page.url()).toMatch(/#\/setup$/);
    // An external serve without its URL: the Fix goes to the Settings field.
    const serve = page.getByTestId('stage-serve').getByRole('button').first();
    if ((await serve.getAttribute('aria-expanded')) !== 'true') await serve.click();
    await page
      .getByRole('group', { name: 'Serve runtime' })
      .getByRole('button', { name: /already run/ })
      .click();
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    await page
      .getByTestId('preflight-check-runtime')
      .getByText(/Give the URL/)
      .waitFor();
    await page.getByTestId('preflight-check-runtime').getByRole('button').click();
    await page.waitForFunction(() => document.activeElement?.id === 'setting-externalServeUrls');
    expect(page.url()).toMatch(/#\/settings$/);
  });

  it('Settings: a URL without a scheme is fixed, a bad value is refused naming the field, reset restores the default', { timeout: 60_000 }, async () => {
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const chain = page.locator('#setting-chainUrl');
    await chain.fill('127.0.0.1:9944');
    await chain.press('Enter');
    await page.waitForFunction(() => (document.querySelector('#setting-chainUrl') as HTMLInputElement).value === 'ws://127.0.0.1:9944');
    const saved = JSON.parse(readFileSync(dataPaths(engine.dataDir).settings, 'utf8')) as { validating: { chainUrl: string } };
    expect(saved.validating.chainUrl).toBe('ws://127.0.0.1:9944');

    const inflight = page.locator('#setting-maxInflightOverride');
    await inflight.fill('100000');
    expect(await page.locator('#setting-maxInflightOverride-msg').textContent()).toBe('In-flight limit (mining.maxInflightOverride) must be a whole number from 1 to 1024 concurrent requests');
    expect(await page.locator('section[aria-label="Mining rig"]').getByRole('button', { name: 'Save' }).nth(0).isDisabled()).toBe(true);
    await inflight.fill('16');
    await inflight.press('Enter');
    await page.locator('#setting-maxInflightOverride-msg').getByText('Not saved yet').waitFor({ state: 'detached' });

    const provider = page.locator('#setting-providerUrl');
    await provider.fill('ftp://provider.example');
    expect(await page.locator('#setting-providerUrl-msg').textContent()).toMatch(/^Provider \(validating.providerUrl\) must be a http:\/\/ or https:\/\/ address/);
    await provider.fill('https://provider.engy.ai');

    // GPU 0 out: the plan is rebuilt on GPU 1 only, and the hardware says so.
    // A controlled checkbox: it changes when the engine's new settings arrive.
    await page.locator('#setting-gpus').getByRole('checkbox').first().click();
    await page.waitForFunction(() => document.querySelectorAll('#setting-gpus input:checked').length === 1);
    await shots('settings-rig');

    await page.locator('section[aria-label="Endpoints"]').getByRole('button', { name: 'Reset to default' }).nth(1).click();
    await page.waitForFunction(() => (document.querySelector('#setting-chainUrl') as HTMLInputElement).value.startsWith('wss://entrypoint-finney'));
    await page
      .locator('#setting-gpus')
      .getByRole('button', { name: /Reset to default/ })
      .click();
    await page.waitForFunction(() => document.querySelectorAll('#setting-gpus input:checked').length === 2);
    await page.locator('#setting-logLevel').selectOption('warn');
    await page.waitForFunction(() => (document.querySelector('#setting-logLevel') as HTMLSelectElement).value === 'warn');
    const after = JSON.parse(readFileSync(dataPaths(engine.dataDir).settings, 'utf8')) as { logLevel: string; mining: { gpus: unknown; maxInflightOverride: unknown } };
    expect(after).toMatchObject({ logLevel: 'warn', mining: { gpus: null, maxInflightOverride: 16 } });
  });
});
