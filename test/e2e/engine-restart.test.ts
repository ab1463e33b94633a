// The engine connection is always visible: an open page sees the engine go, its buttons wait, and
// it reconnects by itself to the restarted engine (same kept token, so the tab's cookie still works).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createServer } from 'node:net';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { startHeadlessChild, type HeadlessChild } from '../helpers/headless-process.ts';

/** A port free right now: the restarted engine must come back on the page's own origin. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('an open page across an engine restart (Chromium)', () => {
  let browser: Browser;
  let engine: HeadlessChild | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'engy-restart-'));

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await engine?.stop();
    await browser?.close();
  });

  it('shows the loss, disables actions, reconnects to the restarted engine, and keeps the token out of the address bar', async () => {
    const port = await freePort();
    const env = { ...process.env };
    delete env.ENGY_PANEL_TOKEN; // the kept token, not a pinned one
    engine = await startHeadlessChild(env, ['--port', String(port)], dataDir);
    const firstToken = engine.token;
    expect(engine.output()).toMatch(/ssh -N -L \d+:127\.0\.0\.1:\d+ \S+@\S+/);
    // The kept token is a 0600 file in the data dir.
    expect(statSync(join(dataDir, 'headless-token')).mode & 0o777).toBe(0o600);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(engine.url);
    await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor();
    expect(page.url()).not.toContain('token=');

    expect(await engine.stop()).toBe(0);
    const banner = page.getByTestId('connection-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('not reachable');
    // Every control inside the page is disabled while the engine is away.
    const enabledButtons = await page.locator('main button:enabled').count();
    expect(enabledButtons).toBe(0);
    await page.screenshot({ path: screenshotPath('engine-away-1280-light') });
    await page.setViewportSize({ width: 800, height: 900 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: screenshotPath('engine-away-800-dark') });

    engine = await startHeadlessChild(env, ['--port', String(port)], dataDir);
    expect(engine.token).toBe(firstToken);
    await banner.waitFor({ state: 'detached', timeout: 30_000 });
    expect(await page.getByTestId('connection').textContent()).toContain('connected');
    expect(await page.locator('main button:enabled').count()).toBeGreaterThan(0);
    // A reload without the token still opens: the cookie carries it.
    await page.reload();
    await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor();
    await page.close();

    // A browser without the cookie or the token gets the page that says how to get the URL.
    const stranger = await browser.newPage();
    const res = await stranger.goto(engine.origin);
    expect(res?.status()).toBe(401);
    expect(await stranger.locator('h1').textContent()).toContain('needs its URL with the token');
    await stranger.close();
    // Two engine starts (each may take startHeadlessChild's whole 120 s wait on a loaded box) and the
    // page: the test outlasts them, so a slow start is the start's own failure, never a child left starting.
  }, 360_000);

  it('--rotate-token revokes the old URL, and an open page says so instead of retrying in silence', async () => {
    const old = engine!.token;
    const port = Number(new URL(engine!.origin).port);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(engine!.url);
    await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor();
    await engine!.stop();
    const env = { ...process.env };
    delete env.ENGY_PANEL_TOKEN;
    engine = await startHeadlessChild(env, ['--port', String(port), '--rotate-token'], dataDir);
    expect(engine.token).not.toBe(old);
    await page.getByTestId('connection-banner').filter({ hasText: 'no longer accepts this page' }).waitFor({ timeout: 45_000 });
    await page.screenshot({ path: screenshotPath('engine-refuses-page-1280-light') });
    await page.close();
    const stale = await fetch(`${engine.origin}/?token=${old}`);
    expect(stale.status).toBe(401);
    expect((await fetch(`${engine.origin}/metrics`, { headers: { authorization: `Bearer ${engine.token}` } })).status).toBe(200);
  }, 240_000);
});
