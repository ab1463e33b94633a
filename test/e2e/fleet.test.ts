// The Fleet end to end: a panel (a headless engine; Chromium drives its UI) adds three rigs through a
// REAL local sshd (test/helpers/sshd.ts) in Settings > Rigs; each rig is a real headless engine on the
// simulated network (copies of one demo profile, so all three read the same hotkey's τ). The host key is
// accepted as shown; the Fleet page shows the rigs; rig-a is started and stopped from the panel after a
// confirmation naming it; rig-a earns (a peer validator sets each epoch's weights on chain), then the
// network is frozen (no new epoch) and each rig's full panel (opened from its row, its name in the banner)
// shows its own Earnings, equal to the rig's exact figure as rounded; the three rigs read one hotkey, so the
// fleet's τ (> 0) is that hotkey's τ counted once (not three times) and the rows say so; rig-c's engine is killed and its row says "unreachable since". Fleet and Settings > Rigs: axe in both themes, captured at 1280 and 800 px
// with neither <main> nor the rigs table wider than its box (test-results/fleet-*.png). Needs the built renderer (npm run build:renderer).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ServerFrame, SnapshotEnvelope } from '../../shared/api.ts';
import type { EarningsSnapshot } from '../../shared/earnings.ts';
import { tau } from '../../renderer/src/features/common/format.ts';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { startHeadlessChild, type HeadlessChild } from '../helpers/headless-process.ts';
import { blankProfile } from '../helpers/setup-steps.ts';
import { startTestSshd, type TestSshd } from '../helpers/sshd.ts';
import { startSimulatedNetwork, type SimulatedNetwork } from '../doubles/sim-network/sim-network.ts';
import { runAxe, WCAG_AA } from '../helpers/axe.ts';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'engy-panel.mjs');
const RIGS = ['rig-a', 'rig-b', 'rig-c'] as const;
// The shared machine may be many times over its cores: every wait is generous, none is a speed claim.
const STARTUP_MS = 180_000;
const WAIT = { timeout: 180_000 };

/** "1.2345 τ" as a number ("—" is no figure yet). */
const tauOf = (text: string | null): number | null => {
  const m = /(-?\d+(?:\.\d+)?)\s*τ/.exec(text ?? '');
  return m ? Number(m[1]) : null;
};

/**
 * A rig's earnings snapshot straight from its own engine (not through the panel): the contract's WebSocket
 * with its token; the engine replays every current snapshot on connect. The exact figures the pages round.
 */
function rigEarnings(rig: HeadlessChild): Promise<EarningsSnapshot> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${rig.origin.replace(/^http/, 'ws')}/ws`, { headers: { authorization: `Bearer ${rig.token}` } });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`no earnings snapshot from ${rig.dataDir} in 60 s`));
    }, 60_000);
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as ServerFrame;
      if (frame.kind !== 'event' || frame.event !== 'snapshot') return;
      const env = frame.payload as SnapshotEnvelope;
      if (env.topic !== 'earnings') return;
      clearTimeout(timer);
      ws.close();
      resolve(env.data as EarningsSnapshot);
    });
    ws.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

describe('the Fleet: three rigs over a real sshd, driven from the panel in Chromium', () => {
  const root = mkdtempSync(join(tmpdir(), 'engy-fleet-e2e-'));
  let sshd: TestSshd;
  let net: SimulatedNetwork;
  const rigs = new Map<string, HeadlessChild>();
  let panel: HeadlessChild;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    sshd = await startTestSshd();
    // peerValidator: another validator puts each epoch's weights on chain, so the rigs' uid earns (projected τ > 0).
    net = await startSimulatedNetwork({ dataDir: join(root, 'sim'), epochMs: 8_000, blockMs: 250, pollSeconds: 2, peerValidator: true, log: () => undefined });
    // Each rig: the demo profile's settings, wallet and miner key, in its own data dir.
    for (const name of RIGS) {
      const dir = join(root, name);
      cpSync(net.dataDir, dir, { recursive: true });
      rigs.set(name, await startHeadlessChild({ PATH: process.env.PATH, HOME: process.env.HOME }, [], dir, STARTUP_MS));
    }
    // The panel: the same simulated network, blank (no role, wallet or miner key of its own).
    const panelDir = join(root, 'panel');
    cpSync(net.dataDir, panelDir, { recursive: true });
    blankProfile(panelDir);
    panel = await startHeadlessChild({ PATH: process.env.PATH, HOME: process.env.HOME, ENGY_FLEET_SSH_CONFIG: sshd.clientConfig }, [], panelDir, STARTUP_MS);
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${panel.url}#/settings`);
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor({ timeout: 120_000 });
  }, 900_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await panel?.stop();
    for (const r of rigs.values()) await r.stop();
    await net?.stop();
    await sshd?.stop();
    rmSync(root, { recursive: true, force: true });
  }, 120_000);

  const row = (name: string) => page.getByTestId(`rig-row-${name}`);
  const openPage = async (hash: string, heading: string | RegExp) => {
    await page.goto(`${panel.url.replace(/\?.*$/, '')}#/${hash}`);
    await page.getByRole('heading', { level: 1, name: heading }).first().waitFor({ timeout: 120_000 });
  };

  /** axe in both themes (the profile follows the system theme), then captures at 1280 and 800 px. */
  const check = async (name: string, failures: string[]) => {
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForFunction((want) => document.documentElement.dataset.theme === want, scheme, { timeout: 10_000 });
      await page.setViewportSize({ width: 1280, height: 900 });
      const axe = await runAxe(page, { tags: WCAG_AA });
      for (const v of axe.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) failures.push(`${name} ${scheme}: ${v.id} (${v.nodes.length}) ${v.nodes[0]?.target.join(' ')}`);
      for (const width of [1280, 800]) {
        await page.setViewportSize({ width, height: 900 });
        await page.waitForTimeout(300);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(1);
        const mainOverflow = await page.evaluate(() => {
          const m = document.querySelector('main');
          return m ? m.scrollWidth - m.clientWidth : 0;
        });
        expect(mainOverflow, `${name}: <main> at ${width} px is wider than its box`).toBeLessThanOrEqual(1);
        // The rigs table fits its card: its scroll box never has to scroll (the Alerts column was cut off at 1280 px).
        const tableOverflow = await page.evaluate(() => {
          const box = document.querySelector('[data-testid="fleet-table"]')?.parentElement;
          return box ? box.scrollWidth - box.clientWidth : 0;
        });
        expect(tableOverflow, `${name}: the rigs table at ${width} px is wider than its card`).toBeLessThanOrEqual(1);
        const h = await page.evaluate(() => (document.querySelector('main')?.scrollHeight ?? 900) + (document.querySelector('.banner-sim')?.clientHeight ?? 0));
        await page.setViewportSize({ width, height: Math.min(Math.max(900, h), 5000) });
        await page.waitForTimeout(200);
        await page.screenshot({ path: screenshotPath(`fleet-${name}-${width}-${scheme}`) });
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'dark' });
  };

  it('adds the three rigs in Settings > Rigs; the host key is accepted as shown; the Fleet page shows them online', { timeout: 900_000 }, async () => {
    // Before any rig: the empty Fleet page (its "Settings > Rigs" link once failed colour contrast) passes axe in both themes.
    await openPage('fleet', 'Fleet');
    await page.getByText('No rigs yet').waitFor(WAIT);
    const empty: string[] = [];
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForFunction((want) => document.documentElement.dataset.theme === want, scheme, { timeout: 10_000 });
      const axe = await runAxe(page, { tags: WCAG_AA });
      for (const v of axe.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) empty.push(`empty fleet ${scheme}: ${v.id} ${v.nodes[0]?.target.join(' ')}`);
    }
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(empty).toEqual([]);
    await page.getByRole('button', { name: 'Settings > Rigs' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor(WAIT);
    const card = page.getByTestId('rigs-card');
    for (const name of RIGS) {
      await card.getByTestId('rig-target').fill(sshd.target);
      await card.getByTestId('rig-name').fill(name);
      await card.getByTestId('rig-command').fill(`${process.execPath} ${bin}`);
      await card.getByTestId('rig-data-dir').fill(rigs.get(name)!.dataDir);
      await card.getByRole('button', { name: 'Add rig' }).click();
      await card.getByTestId(`rig-setting-${name}`).waitFor({ timeout: 30_000 });
    }
    // Unknown host key: its fingerprint is shown, and accepted only by the user, rig by rig.
    for (const name of RIGS) {
      const shown = card.getByTestId(`fingerprint-${name}`);
      await shown.waitFor(WAIT);
      expect(await shown.textContent()).toMatch(/^SHA256:\S+ \(ED25519\)/);
      await card.getByRole('button', { name: `Accept this key for ${name}` }).click();
      await card.getByTestId(`hostkey-${name}`).waitFor({ state: 'detached', timeout: 180_000 });
    }
    await openPage('fleet', 'Fleet');
    for (const name of RIGS) await expect.poll(() => row(name).getAttribute('data-link'), WAIT).toBe('online');
    await expect.poll(() => page.getByTestId('fleet-online').textContent(), WAIT).toMatch(/3 of 3/);
  });

  it('starts rig-a from the panel (the confirmation names it) and it mines; it stops and starts again the same way', { timeout: 900_000 }, async () => {
    const act = async (button: RegExp, verb: string) => {
      await page.getByRole('checkbox', { name: 'Select rig-a' }).check();
      await page.getByRole('toolbar').getByRole('button', { name: button }).click();
      const confirm = page.getByTestId('fleet-confirm');
      await expect.poll(() => confirm.textContent(), WAIT).toMatch(new RegExp(`${verb} mining on rig-a\\?`));
      expect(await confirm.textContent()).not.toMatch(/rig-b|rig-c/);
      await confirm.getByRole('button', { name: new RegExp(`^${verb} 1 rig$`) }).click();
      // Start rehearses on the rig first: on a loaded machine the answer may come after the panel's 60 s (the state below tells).
      await expect.poll(() => page.getByTestId('fleet-results').textContent(), WAIT).toMatch(verb === 'Start' ? /rig-a: (started|.*did not answer)/ : /rig-a: stopped/);
      await page.getByRole('checkbox', { name: 'Select rig-a' }).uncheck();
    };
    await act(/^Start mining$/, 'Start');
    // Mining once qualified (a stop mid-probe would fail the probe, and the gateway would deny the key).
    await expect.poll(() => page.getByTestId('rig-state-rig-a').textContent(), { timeout: 300_000 }).toMatch(/^mining/);
    await act(/^Stop mining$/, 'Stop');
    await expect.poll(() => page.getByTestId('rig-state-rig-a').textContent(), WAIT).toMatch(/^stopped/);
    await act(/^Start mining$/, 'Start');
    await expect.poll(() => page.getByTestId('rig-state-rig-a').textContent(), { timeout: 300_000 }).toMatch(/^mining/);
    // rig-b and rig-c were never touched.
    for (const name of ['rig-b', 'rig-c']) expect(await page.getByTestId(`rig-state-${name}`).textContent()).toMatch(/^stopped/);
  });

  it("each rig's full panel (its name in the banner) shows its own Earnings; with τ earned and the network frozen, the fleet's τ counts their one hotkey once", { timeout: 900_000 }, async () => {
    // Earn first: rig-a mines, the peer validator puts each epoch's weights on chain, and the rigs (one hotkey)
    // read a non-zero projected τ. Then freeze the network (no traffic, no new epoch) so the figures stay put.
    await openPage('fleet', 'Fleet');
    await expect.poll(async () => tauOf(await page.getByTestId('fleet-today').locator('.stat-value').textContent()) ?? 0, { timeout: 600_000, interval: 1_000 }).toBeGreaterThan(0);
    await net.freeze();
    const published = net.epochs.length;
    const lastEpochAt = net.epochs.at(-1)!.at;
    // Each rig's exact figure from its own engine: every published epoch read and τ'd, by a refresh after the
    // last epoch ended (its chain read then settles the last epoch's projection), and the same on the next refresh.
    const settled = new Map<string, { at: number; tao: number; week: number; hotkey: string | null }>();
    const exact = new Map<string, number>();
    const exactWeek = new Map<string, number>();
    for (const name of RIGS) {
      await expect
        .poll(
          async () => {
            const e = await rigEarnings(rigs.get(name)!);
            if (e.epochs.length !== published || e.epochs.some((x) => x.projectedTao === null) || (e.updatedAt ?? 0) <= lastEpochAt) return 'not settled';
            const before = settled.get(name);
            settled.set(name, { at: e.updatedAt ?? 0, tao: e.totals.day.projectedTao, week: e.totals.week.projectedTao, hotkey: e.hotkey });
            return before && before.at !== e.updatedAt && before.tao === e.totals.day.projectedTao && before.week === e.totals.week.projectedTao ? 'settled' : 'not settled';
          },
          { timeout: 300_000, interval: 1_000 },
        )
        .toBe('settled');
      exact.set(name, settled.get(name)!.tao);
      exactWeek.set(name, settled.get(name)!.week);
    }
    for (const name of RIGS) {
      await page.getByTestId(`rig-open-${name}`).click();
      await expect.poll(() => page.getByTestId('rig-banner-name').textContent(), WAIT).toBe(name);
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('button', { name: /^Earnings/ })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Earnings' }).waitFor({ timeout: 120_000 });
      // The rig's own Earnings page shows its own figure, as it rounds it, from epochs it read.
      const card = page.getByTestId('tau-total-Last 24 h');
      await expect.poll(() => card.locator('.stat-value').textContent(), WAIT).toBe(tau(exact.get(name)!));
      expect(await card.textContent()).toMatch(new RegExp(`(^|\\D)${published} epochs ended`));
      // The rig's own Settings page has no Settings > Rigs (the rigs are this panel's).
      if (name === 'rig-a') {
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark', null, { timeout: 10_000 });
        await page.screenshot({ path: screenshotPath('fleet-rig-panel-earnings-1280-dark') });
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('button', { name: /^Settings/ })
          .click();
        await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor({ timeout: 60_000 });
        expect(await page.getByTestId('rigs-card').count()).toBe(0);
        expect(await page.getByTestId('rig-banner-name').textContent()).toBe('rig-a');
      }
      if (name === 'rig-b') {
        // A reload while a rig's full panel is open comes back on this panel's own engine (docs/fleet.md), never
        // on a rig's pages without its name: no banner, and Settings is this panel's (Settings > Rigs shows).
        await page.reload();
        await page.getByRole('heading', { level: 1, name: 'Earnings' }).waitFor({ timeout: 120_000 });
        expect(await page.getByTestId('rig-banner').count()).toBe(0);
        await openPage('settings', 'Settings');
        await page.getByTestId('rigs-card').waitFor({ timeout: 60_000 });
        expect(await page.getByTestId('rig-banner').count()).toBe(0);
        await openPage('fleet', 'Fleet');
      } else {
        await page.getByRole('button', { name: 'Back to this panel' }).click();
        await page.getByRole('heading', { level: 1, name: 'Fleet' }).waitFor({ timeout: 60_000 });
      }
      expect(await page.getByTestId('rig-banner').count()).toBe(0);
      // The row says what the rig's own page said.
      await expect.poll(() => page.getByTestId(`rig-today-${name}`).textContent(), WAIT).toBe(tau(exact.get(name)!));
    }
    // The three rigs read one hotkey (copies of one profile), each at its own chain reads (so their projected
    // figures may differ in the last digits): the fleet counts that hotkey once, from its first rig (rig-a), not
    // three times. The total is rig-a's exact figure as shown, τ earned (not 0), and each row says it shares the hotkey.
    const hotkey = settled.get('rig-a')!.hotkey;
    expect(hotkey).toMatch(/^\w{8,}$/);
    for (const name of RIGS) expect(settled.get(name)!.hotkey).toBe(hotkey);
    expect(exact.get('rig-a')!).toBeGreaterThan(0);
    const total = page.getByTestId('fleet-today').locator('.stat-value');
    await expect.poll(() => total.textContent(), WAIT).toBe(tau(exact.get('rig-a')!));
    // Not the old sum of the rows (about three times the hotkey's τ).
    expect(tauOf(await total.textContent())!).toBeLessThan(RIGS.reduce((s, n) => s + exact.get(n)!, 0) / 2);
    await expect.poll(() => page.getByTestId('fleet-week').locator('.stat-value').textContent(), WAIT).toBe(tau(exactWeek.get('rig-a')!));
    expect(await page.getByTestId('fleet-earners').textContent()).toBe('1 hotkey over 3 rigs, each counted once');
    expect(await page.getByTestId('rig-shared-rig-a').textContent()).toBe('same hotkey as rig-b, rig-c');
    expect(await page.getByTestId('rig-shared-rig-b').textContent()).toBe('same hotkey as rig-a, rig-c: counted once');
    expect(await page.getByTestId('rig-shared-rig-b').getAttribute('title')).toMatch(/counted once in the totals \(from rig-a\)/);
    expect(await page.getByTestId('share-rig-a+rig-b+rig-c').textContent()).toMatch(/100\.0 %/);
    // Frozen means frozen: no epoch was published while the figures were read.
    expect(net.epochs.length).toBe(published);
  });

  it('the Fleet and Settings > Rigs pass axe in both themes and are captured at 1280 and 800 px', { timeout: 900_000 }, async () => {
    const failures: string[] = [];
    await openPage('fleet', 'Fleet');
    await check('page', failures);
    await openPage('settings', 'Settings');
    await page.getByTestId('rigs-card').scrollIntoViewIfNeeded();
    await check('settings-rigs', failures);
    expect(failures).toEqual([]);
  });

  it('rig-c\'s engine killed: its row says "unreachable since ..." while the others stay online', { timeout: 900_000 }, async () => {
    await openPage('fleet', 'Fleet');
    await rigs.get('rig-c')!.stop();
    await expect.poll(() => page.getByTestId('rig-state-rig-c').textContent(), WAIT).toMatch(/unreachable since \d{2}:\d{2}/);
    expect(await row('rig-c').getAttribute('data-link')).not.toBe('online');
    for (const name of ['rig-a', 'rig-b']) expect(await row(name).getAttribute('data-link')).toBe('online');
    await expect.poll(() => page.getByTestId('fleet-online').textContent(), WAIT).toMatch(/2 of 3/);
    // Its full panel cannot be opened while it is away (the name is no longer a link).
    expect(await page.getByTestId('rig-open-rig-c').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('fleet-rig-down-1280-dark') });
    // The README's picture (docs/images/fleet.png): τ earned on the simulated network, one rig down keeping its last τ.
    await page.screenshot({ path: screenshotPath('fleet-readme') });
  });
});
