// A newcomer on the simulated network, end to end in Chromium, with nothing borrowed: a fresh data dir (only the
// network's addresses in settings), a NEW coldkey through the words dialog, test τ from the simulated network's
// faucet step, a NEW hotkey, registration paid by that coldkey, a miner key issued for that hotkey (the simulated
// provider site), Start, "earning", then net profit per day on the Mine page. The time from the first page to
// "earning" is printed (not asserted: the machine is shared). Screenshots of the faucet step and the earning Mine
// page at 1280 and 800 px, dark and light (test-results/newcomer-*); axe on every page visited. Last, Stop: it asks
// first and names the cost (the worker is probed again), and only the confirmation stops the miner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { startHeadless, type RunningHeadless } from '../../electron/headless.ts';
import { dataPaths } from '../../electron/engine/lib/paths.ts';
import { loadHotkeyAddress } from '../../electron/engine/wallet/hotkey-address.ts';
import { defaultSettings, type Settings } from '../../shared/settings.ts';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { FAKE_NVIDIA_SMI_DIR } from '../helpers/fake-nvidia-smi.ts';
import { setupSteps } from '../helpers/setup-steps.ts';
import { until } from '../helpers/until.ts';
import { CHECKPOINT_TINY } from '../doubles/fake-sglang/spawn.ts';
import { SIM_FAUCET_LABEL, startSimulatedNetwork, type SimulatedNetwork } from '../doubles/sim-network/sim-network.ts';
import { pageShots } from '../helpers/page-shots.ts';
import { runAxe } from '../helpers/axe.ts';

const PASSWORD = 'newcomer-coldkey-password';
const WALLET = 'newcomer';

/** The app's own data dir, fresh: the simulated network's addresses and the user's kWh price, nothing else. */
function freshDataDir(netDir: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'engy-newcomer-app-'));
  const net = JSON.parse(readFileSync(dataPaths(netDir).settings, 'utf8')) as Settings;
  const d = defaultSettings();
  const s: Settings = {
    ...d,
    network: 'simulated',
    wallet: { path: join(dir, 'wallets'), name: null, hotkey: null },
    mining: { ...d.mining, gatewayUrl: net.mining.gatewayUrl },
    validating: net.validating,
    // The electricity price is the user's (Settings > Profit); the τ price comes from the network's price double.
    profit: { ...d.profit, priceUrl: net.profit.priceUrl, kwhPrice: 0.3 },
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(dataPaths(dir).settings, JSON.stringify(s));
  return dir;
}

const shoot = (page: Page, name: string) => pageShots(page, `newcomer-${name}`);

// Sized for a 2-core box at load ~30, where this walk runs about ten times slower than idle (the first page
// and its axe passes took over 90 s there, against 12 s idle). Every wait ends as soon as its condition
// holds, so the idle run time is unchanged; only a walk that is stuck waits this long to fail.
/** Playwright's own default (30 s) for every click, fill, waitFor and navigation of this walk. */
const PAGE_WAIT_MS = 90_000;
/** Argon2i with btcli's limits (8 passes over 512 MiB) is ~7 CPU seconds, a fair share of 2 cores at load ~30 is 1/15 of one; the whole coldkey step took ~300 s at load ~40. */
const ARGON2_WAIT_MS = 420_000;

describe('newcomer walk: fresh data dir, new keys, the faucet, to earning and net profit per day', () => {
  const netDir = mkdtempSync(join(tmpdir(), 'engy-newcomer-net-'));
  let appDir = '';
  const saved = { PATH: process.env.PATH, FAKE_NVIDIA_SMI: process.env.FAKE_NVIDIA_SMI };
  let net: SimulatedNetwork;
  let app: RunningHeadless;
  let browser: Browser;
  let page: Page;
  let firstPageAt = 0;
  const axeFailures: string[] = [];
  const { stage, badge, open, useExternalServe } = setupSteps(() => page);

  const axe = async (where: string) => {
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const res = await runAxe(page);
      for (const v of res.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
        axeFailures.push(
          `${where} (${scheme}): ${v.id} [${v.impact}] ${v.help} :: ${v.nodes
            .slice(0, 3)
            .map((n) => n.target.join(' '))
            .join(' | ')}`,
        );
      }
    }
    await page.emulateMedia({ colorScheme: 'dark' });
  };

  beforeAll(async () => {
    // No validator in the app (a newcomer mines only): the network's own validator puts the weights on chain.
    net = await startSimulatedNetwork({ dataDir: netDir, epochMs: 8_000, blockMs: 250, pollSeconds: 2, peerValidator: true });
    appDir = freshDataDir(netDir);
    process.env.PATH = `${FAKE_NVIDIA_SMI_DIR}${delimiter}${process.env.PATH ?? ''}`;
    process.env.FAKE_NVIDIA_SMI = '2x4090';
    app = await startHeadless({ host: '127.0.0.1', port: 0, dataDir: appDir });
    browser = await launchBrowser();
    // A context of its own: axe opens a helper page in it.
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(PAGE_WAIT_MS);
    await page.emulateMedia({ colorScheme: 'dark' });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await net?.stop();
    process.env.PATH = saved.PATH;
    if (saved.FAKE_NVIDIA_SMI === undefined) delete process.env.FAKE_NVIDIA_SMI;
    else process.env.FAKE_NVIDIA_SMI = saved.FAKE_NVIDIA_SMI;
    rmSync(netDir, { recursive: true, force: true });
    if (appDir) rmSync(appDir, { recursive: true, force: true });
  });

  it('role, hardware and serve from the first page', { timeout: 300_000 }, async () => {
    await page.goto(app.server.url);
    await page.getByText('SIMULATED NETWORK').waitFor();
    firstPageAt = Date.now();
    await badge('role', 'current').waitFor();
    await axe('setup, first page');
    await page.getByRole('group', { name: 'Role' }).getByRole('button', { name: /^Mine/ }).click();
    await useExternalServe(await net.honestServe.url(), CHECKPOINT_TINY);
    await badge('serve', 'done').waitFor();
  });

  it('a new coldkey, funded by the faucet step, then a new hotkey', { timeout: 600_000 }, async () => {
    await open('coldkey');
    await page.getByRole('textbox', { name: 'Coldkey wallet name' }).fill(WALLET);
    await page.getByRole('textbox', { name: 'New coldkey password' }).fill(PASSWORD);
    await page.getByRole('textbox', { name: 'Repeat the password' }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create coldkey' }).click();
    const dialog = page.getByTestId('secret-dialog');
    // Argon2i with btcli's real limits: seconds, minutes under load. A refusal (the step's error) ends the wait and
    // is the failure, instead of minutes of silence.
    const refused = stage('coldkey').locator('.error-box');
    await dialog.or(refused).first().waitFor({ timeout: ARGON2_WAIT_MS });
    // The step's words only when it refused: reading a missing element would wait out the page's whole timeout.
    const said = (await refused.isVisible()) ? await refused.textContent() : null;
    expect(said, 'the coldkey step refused').toBeNull();
    await axe('setup, coldkey words dialog');
    // Leaving the page while the words are shown would lose them: the page asks first (a cancelled beforeunload),
    // and only while they are shown.
    const leavingIsQueried = () =>
      page.evaluate(() => {
        const e = new Event('beforeunload', { cancelable: true });
        window.dispatchEvent(e);
        return e.defaultPrevented;
      });
    expect(await leavingIsQueried(), 'a reload with the words shown is queried').toBe(true);
    await dialog.getByRole('checkbox', { name: 'I have written them down' }).check();
    await dialog.getByRole('button', { name: /Done/ }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await leavingIsQueried(), 'nothing to lose once the words are confirmed').toBe(false);
    await badge('coldkey', 'done').waitFor();

    // The faucet step: offered because the engine's chain has one, labelled as the simulated network's.
    await badge('faucet', 'current').waitFor();
    await open('faucet');
    const faucet = page.getByTestId('faucet');
    await faucet.getByText(SIM_FAUCET_LABEL).waitFor();
    expect(await faucet.textContent()).toMatch(/simulated network/);
    expect(await faucet.getByTestId('faucet-balance').textContent()).toMatch(/^0 τ/);
    await shoot(page, 'faucet-step');
    await axe('setup, faucet step');
    await faucet.getByRole('button', { name: /^Fund my coldkey with [\d.]+ τ of test τ$/ }).click();
    await badge('faucet', 'done').waitFor();
    await open('faucet');
    expect(await page.getByTestId('faucet-balance').textContent()).toMatch(/enough to register/);
    await shoot(page, 'faucet-funded');

    await open('hotkey');
    expect(await page.getByRole('textbox', { name: 'Wallet name' }).inputValue()).toBe(WALLET);
    await page.getByRole('textbox', { name: 'Hotkey name' }).fill('miner');
    await page.getByRole('button', { name: 'Create a new hotkey' }).click();
    await dialog.waitFor();
    await dialog.getByRole('checkbox', { name: 'I have written them down' }).check();
    await dialog.getByRole('button', { name: /Done/ }).click();
    await badge('hotkey', 'done').waitFor();
  });

  it('registration paid by the funded coldkey, a miner key issued for the new hotkey, Start, earning', { timeout: 600_000 }, async () => {
    await open('registration');
    await page
      .getByTestId('registration-needs')
      .locator('.badge.ok', { hasText: /^enough$/ })
      .waitFor();
    await page.getByRole('textbox', { name: 'Coldkey password' }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Register with this coldkey' }).click();
    // The coldkey is unlocked (Argon2i again) to sign, then the extrinsic waits for its block.
    await badge('registration', 'done').waitFor({ timeout: ARGON2_WAIT_MS + 100_000 });
    const hotkey = loadHotkeyAddress({ walletPath: join(appDir, 'wallets'), wallet: WALLET, hotkey: 'miner' });
    expect(net.uidOf(hotkey)).toBeTypeOf('number');

    // The user fetches a key for the registered hotkey from the provider's site (the simulated network's stand-in).
    const key = net.issueMinerKey(hotkey);
    await open('minerkey');
    await page.getByRole('textbox', { name: 'Miner key' }).fill(key);
    await page.getByRole('button', { name: 'Save and check' }).click();
    await badge('minerkey', 'done').waitFor();

    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    await page.getByTestId('preflight-summary').getByText('all clear').waitFor();
    await axe('mine, before start');
    await page.getByTestId('mine-toggle').click();
    await page.getByTestId('miner-phase').getByText('earning').waitFor({ timeout: 400_000 });
    const secs = (Date.now() - firstPageAt) / 1000;
    console.log(`newcomer walk: first page to "earning" in ${secs.toFixed(0)} s (${(secs / 60).toFixed(1)} min)`);
  });

  it("the Mine page shows net profit per day from the new hotkey's own epochs", { timeout: 450_000 }, async () => {
    const netFigure = page.locator('[data-figure="profit-net"] .stat-value');
    // Three verified epochs with this hotkey's weight (8 s each here) and a chain read of its incentive.
    try {
      await until('net profit per day on the Mine page', 400_000, async () => /^−?[\d,]+\.\d{2} USD$/.test(((await netFigure.textContent({ timeout: 1_000 }).catch(() => '')) ?? '').trim()), 1_000);
    } catch (e) {
      // What the card and the network said instead, for whoever reads the failure.
      const hk = loadHotkeyAddress({ walletPath: join(appDir, 'wallets'), wallet: WALLET, hotkey: 'miner' });
      const uid = net.uidOf(hk);
      console.log(
        `profit card: ${await page
          .getByTestId('profit')
          .textContent()
          .catch(() => 'absent')}`,
      );
      console.log(
        `epochs published: ${net.epochs.length}; weights of the last: ${JSON.stringify(net.epochs.at(-1)?.weights ?? null)}; uid ${uid}, incentive ${uid === undefined ? '-' : net.chain.state.subnet(53)?.neurons[uid]?.incentive}`,
      );
      throw e;
    }
    expect(await page.locator('[data-figure="profit-tao"] .stat-value').textContent()).toMatch(/τ$/);
    expect(await page.locator('[data-figure="profit-tao"]').textContent()).toMatch(/projected, from the last \d epochs/);
    console.log(`newcomer walk: net profit per day reads ${(await netFigure.textContent())?.trim()}`);
    await axe('mine, earning');
    await shoot(page, 'mine-earning');
    // The Mine page is long: the profit card alone too, at both widths and themes, to read its figures.
    for (const width of [1280, 800]) {
      for (const scheme of ['dark', 'light'] as const) {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme: scheme });
        await page.getByTestId('profit').screenshot({ path: screenshotPath(`newcomer-mine-profit-${width}-${scheme}`) });
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('Stop asks first and says the worker is probed again; keeping it changes nothing, confirming stops', { timeout: 240_000 }, async () => {
    await page.getByTestId('mine-toggle').click();
    const confirm = page.getByRole('alertdialog', { name: 'Stop mining?' });
    await confirm.waitFor();
    expect(await confirm.textContent()).toMatch(/probed again before paid traffic returns/);
    await axe('mine, stop confirmation');
    await confirm.getByRole('button', { name: 'Keep mining' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await page.getByTestId('miner-phase').textContent()).toMatch(/earning/);
    expect(app.engine.mining.minerSnapshots()[0]?.phase).toBe('active');

    await page.getByTestId('mine-toggle').click();
    await confirm.getByRole('button', { name: 'Stop mining' }).click();
    await until('the miner stopped', 180_000, () => (app.engine.mining.minerSnapshots()[0]?.phase ?? 'stopped') === 'stopped');
    await page.getByRole('button', { name: 'Start mining' }).waitFor();
    expect(axeFailures).toEqual([]);
  });
});
