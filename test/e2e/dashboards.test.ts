// The dashboards end to end on the simulated network, after several epochs (a provider outage
// included, from the scripted story): every page at 1280 and 800 px in dark and light, captured to
// test-results/ (dash-<page>-<width>-<theme>.png); axe-core on every page in both themes fails on
// any serious or critical violation; the Mine cards and chart legends read the same figures.
// Needs the built renderer (npm run build:renderer).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHeadless } from '../../electron/headless.ts';
import type { EarningsSnapshot } from '../../shared/earnings.ts';
import type { SeriesHistoryResponse } from '../../shared/miner.ts';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { until } from '../helpers/until.ts';
import { alertsCoveringControls } from '../helpers/toast-overlap.ts';
import { startSimulatedNetwork, type SimulatedNetwork } from '../doubles/sim-network/sim-network.ts';
import { runStory, type RunningStory } from '../doubles/sim-network/story.ts';
import { runAxe } from '../helpers/axe.ts';

const PAGES = ['mine', 'validate', 'earnings', 'history', 'notifications', 'logs', 'settings', 'setup'] as const;
const HEADINGS: Record<(typeof PAGES)[number], RegExp> = {
  mine: /^Mining$/,
  validate: /^Validating$/,
  earnings: /^Earnings$/,
  history: /^History$/,
  notifications: /^Alerts$/,
  logs: /^Logs$/,
  settings: /^Settings$/,
  setup: /./,
};

describe('dashboards on the simulated network (Chromium, axe, 1280/800 px, dark/light)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'engy-dash-'));
  let net: SimulatedNetwork;
  let app: RunningHeadless;
  let story: RunningStory;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    net = await startSimulatedNetwork({ dataDir, epochMs: 8_000, blockMs: 250, pollSeconds: 2, log: () => undefined });
    app = await net.startApp();
    story = runStory(net, { log: () => undefined, validator: () => app.engine.validating.snapshot(), maxOutageMs: 40_000 });
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  }, 240_000);

  afterAll(async () => {
    story?.stop();
    await browser?.close();
    await net?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const open = async (p: (typeof PAGES)[number]) => {
    await page.goto(`${app.server.url}#/${p}`);
    await page.getByRole('heading', { level: 1, name: HEADINGS[p] }).first().waitFor({ timeout: 60_000 });
  };
  const theme = async (t: 'dark' | 'light') => {
    if (!page.url().startsWith('http')) await open('settings');
    await app.engine.table['settings.update']({ theme: t });
    await page.waitForFunction((want) => document.documentElement.dataset.theme === want, t, { timeout: 10_000 });
  };

  const alertsSeen = new Set<string>();
  const capture = async (p: (typeof PAGES)[number], width: number, t: 'dark' | 'light') => {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(400);
    // Nothing sideways at 800 px: the page itself never scrolls horizontally (wide tables scroll in their box).
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${p} at ${width} px scrolls sideways`).toBeLessThanOrEqual(1);
    // No alert ever covers a control: checked by bounding boxes at this width, before and after growing the page.
    const before = await alertsCoveringControls(page);
    expect(before.covered, `${p} at ${width} px: an alert covers`).toEqual([]);
    if (before.alerts > 0) alertsSeen.add(p);
    // The page scrolls inside <main>: grow the viewport to its content for a whole-page capture.
    const h = await page.evaluate(() => (document.querySelector('main')?.scrollHeight ?? 900) + (document.querySelector('.banner-sim')?.clientHeight ?? 0));
    await page.setViewportSize({ width, height: Math.min(Math.max(900, h), 7000) });
    await page.waitForTimeout(300);
    expect((await alertsCoveringControls(page)).covered, `${p} at ${width} px (whole page): an alert covers`).toEqual([]);
    await page.screenshot({ path: screenshotPath(`dash-${p}-${width}-${t}`) });
    await page.setViewportSize({ width, height: 900 });
  };

  it('runs several epochs with the rig mining and the provider outage of the story', { timeout: 300_000 }, async () => {
    await until("the app's miner active", 90_000, () => app.engine.mining.minerSnapshots()[0]?.phase === 'active');
    await until('the story past the provider outage', 200_000, () => story.steps.includes('provider-recovers'));
    const e = await until('three verified epochs in Earnings', 60_000, async () => {
      const s = (await app.engine.table['earnings.refresh'](null)) as EarningsSnapshot;
      return s.epochs.length >= 3 ? s : null;
    });
    expect(e.epochs.some((x) => x.weight > 0)).toBe(true);
    // The simulated epochs are dated by the minutes they scored: all inside the last 24 h, and the
    // tokens this rig served fall inside their windows, as Earnings shows them per epoch.
    expect(e.totals.day).toEqual(e.totals.all);
    expect(e.epochs.some((x) => (x.tokens?.requests ?? 0) > 0)).toBe(true);
    expect(e.epochs.reduce((n, x) => n + (x.tokens?.requests ?? 0), 0)).toBeLessThanOrEqual(e.local.all.requests);
    // The simulated chain makes a block every 250 ms of wall time: the validator's resubmit ETA follows
    // the measured pace, not the 12 s of finney (the Validate page would otherwise promise minutes for seconds).
    const v = app.engine.validating.snapshot();
    if (!v) throw new Error('the validator has no snapshot after several epochs');
    const blocks = (v.nextResubmit?.block ?? 0) - (v.applied?.block ?? 0);
    const ms = (v.nextResubmit?.at ?? 0) - (v.applied?.at ?? 0);
    expect(blocks).toBeGreaterThan(0);
    expect(ms / blocks).toBeLessThan(2_000);
    // The miner's chart history holds a line, not a dot (samples at most every 15 s): wait for it
    // rather than sleeping, so a loaded machine only makes this slower, never wrong.
    await until('two chart samples of the miner', 120_000, async () => {
      const h = (await app.engine.table['history.series']({ windowMs: 10 * 60_000, prefix: 'miner.0.' })) as SeriesHistoryResponse;
      return (h.series['miner.0.tps']?.length ?? 0) >= 2;
    });
  });

  it('Mine: the cards and the chart legends read the same figures', { timeout: 60_000 }, async () => {
    await theme('dark');
    await open('mine');
    await page.getByTestId('miner-charts').waitFor();
    // Read card and legend in one turn of the page's event loop: both render from the same snapshot.
    const r = await page.evaluate(() => {
      const text = (sel: string) => document.querySelector(sel)?.textContent?.trim() ?? '';
      const legend = (i: number) => document.querySelectorAll('[data-testid="miner-charts"] figure')[i]?.querySelector('[data-series="this miner"] b')?.textContent?.trim() ?? '';
      return { card: text('[data-figure="throughput"] .stat-value'), legend: legend(0), ttftCard: text('[data-figure="ttft"] .stat-value'), ttftLegend: legend(2) };
    });
    expect(r.card).toMatch(/tok\/s$/);
    expect(r.legend).toBe(r.card);
    expect(r.ttftLegend).toBe(r.ttftCard);
    expect(await page.locator('[data-figure="ttft"]').textContent()).toMatch(/TTFT p99, last 5 min/);
  });

  // One walk over the pages: each is opened once, then checked with axe and captured in every
  // theme and width (the theme and viewport change in place), instead of six walks that reload them.
  it('every page: axe in dark and light (no serious or critical violation), captured at 1280 and 800 px in both, no alert covering a control', { timeout: 1_500_000 }, async () => {
    const failures: string[] = [];
    // Two ongoing alerts with long text through the engine's own notification service (a test source,
    // cleared below), so every capture has a full alert tray whose boxes are checked against the controls.
    app.engine.notifications.update('e2e-tray', [
      {
        key: 'e2e-a',
        kind: 'serve-stalled',
        severity: 'error',
        title: 'Test alert: the serve stopped answering',
        body: 'A long explanation that wraps over several lines at 800 px, as the real ones do when they name a URL, a cause and what to do next. '.repeat(3),
      },
      { key: 'e2e-b', kind: 'validator-stalled', severity: 'warn', title: 'Test alert: provider unreachable', body: 'Second alert, so the tray holds more than one.' },
    ]);
    for (const p of PAGES) {
      await page.setViewportSize({ width: 1280, height: 900 });
      await open(p);
      if (p === 'mine') await page.getByTestId('miner-charts').waitFor();
      if (p === 'earnings') await page.getByTestId('epochs').waitFor({ timeout: 30_000 });
      for (const t of ['dark', 'light'] as const) {
        await theme(t);
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.waitForTimeout(300);
        const res = await runAxe(page);
        for (const v of res.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
          failures.push(
            `${p} (${t}): ${v.id} [${v.impact}] ${v.help} :: ${v.nodes
              .slice(0, 3)
              .map((n) => n.target.join(' '))
              .join(' | ')}`,
          );
        }
        for (const width of [1280, 800] as const) await capture(p, width, t);
      }
    }
    // A dismissed alert stays dismissed: after a reload, and when its condition comes back (a flap is the same alert).
    await page.setViewportSize({ width: 1280, height: 900 });
    await open('mine');
    const dismissB = page.getByRole('button', { name: 'Dismiss: Test alert: provider unreachable' });
    await dismissB.click();
    await dismissB.waitFor({ state: 'detached', timeout: 10_000 });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: HEADINGS.mine }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Dismiss: Test alert: the serve stopped answering' }).waitFor({ timeout: 30_000 });
    expect(await dismissB.count(), 'the dismissed alert after a reload').toBe(0);
    app.engine.notifications.update('e2e-tray', [{ key: 'e2e-a', kind: 'serve-stalled', severity: 'error', title: 'Test alert: the serve stopped answering', body: 'Still ongoing.' }]);
    app.engine.notifications.update('e2e-tray', [
      { key: 'e2e-a', kind: 'serve-stalled', severity: 'error', title: 'Test alert: the serve stopped answering', body: 'Still ongoing, with the other back.' },
      { key: 'e2e-b', kind: 'validator-stalled', severity: 'warn', title: 'Test alert: provider unreachable', body: 'Back again.' },
    ]);
    await page.locator('section.toasts', { hasText: 'Still ongoing, with the other back.' }).waitFor({ timeout: 30_000 });
    expect(await dismissB.count(), 'the dismissed alert when its condition returns').toBe(0);
    // An alert closes itself when its cause clears: it reads "Cleared" in the tray, then leaves it.
    app.engine.notifications.update('e2e-tray', []);
    await page.locator('section.toasts .toast', { hasText: 'Cleared: Test alert: the serve stopped answering' }).waitFor({ timeout: 30_000 });
    await page.locator('section.toasts .toast', { hasText: 'Test alert: the serve stopped answering' }).waitFor({ state: 'detached', timeout: 60_000 });
    expect(failures).toEqual([]);
    expect([...alertsSeen].sort(), 'the alert tray was on every page').toEqual([...PAGES].sort());
  });

  it('the tab title says the state', async () => {
    await open('mine');
    await page.waitForFunction(() => document.title.startsWith('Mining - active'), null, { timeout: 10_000 });
    expect(await page.title()).toMatch(/^Mining - active/);
  });
});
