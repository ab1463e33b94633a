// A newcomer's setup, end to end in Chromium, using only what the UI offers:
// (a) a fresh data dir on a faked 2x RTX 4090 rig, from the first screen to mining on the simulated
//     network: role, hardware, Python runtime with sglang detected (fake python), checkpoint, coldkey
//     create and hotkey create (each through the show-once words dialog), registration paid by that
//     coldkey, a miner key refused then admitted by the gateway double, Start on the Mine page;
// (b) a faked 1x RTX 4090 rig that takes "Validate instead".
// Every step is photographed at 1280 and 800 px, dark and light, into test-results/setup-walk-*.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startHeadless, type RunningHeadless } from '../../electron/headless.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { FAKE_NVIDIA_SMI_DIR } from '../helpers/fake-nvidia-smi.ts';
import { blankProfile, setupSteps } from '../helpers/setup-steps.ts';
import { CHECKPOINT_TINY, exitWithParentEnv } from '../doubles/fake-sglang/spawn.ts';
import { HONEST_KEY } from '../doubles/sim-network/demo-data-dir.ts';
import { TAO } from '../doubles/dev-chain/sn53-seed.ts';
import { startSimulatedNetwork, type SimulatedNetwork } from '../doubles/sim-network/sim-network.ts';
import { pageShots } from '../helpers/page-shots.ts';

const FAKE_PYTHON = join(import.meta.dirname, '..', 'doubles', 'fake-python', 'python');
const COLD_PASSWORD = 'walk-coldkey-password';

const shoot = (page: Page, name: string) => pageShots(page, `setup-walk-${name}`);

// Sized for a 2-core box at load ~30, where a walk runs about ten times slower than idle (the first page load
// alone passed Playwright's 30 s there). Every wait ends as soon as its condition holds, so the idle run time is
// unchanged; only a walk that is stuck waits this long to fail.
/** Playwright's own default (30 s) for every navigation, click, fill and waitFor of these walks. */
const PAGE_WAIT_MS = 90_000;
/** Argon2i with btcli's limits (8 passes over 512 MiB) is ~7 CPU seconds, a fair share of 2 cores at load ~30 is 1/15 of one; the whole coldkey step took ~300 s at load ~40. */
const ARGON2_WAIT_MS = 420_000;
/** A beforeAll that starts the simulated network, an engine and Chromium. */
const START_MS = 300_000;

/** The one click that starts mining (the lead inserts the pre-flight check here). */
async function startMining(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Mine', exact: true }).click();
  await page.getByTestId('mine-toggle').click();
}

function fakeRig(gpus: string): () => void {
  const saved = {
    PATH: process.env.PATH,
    FAKE_NVIDIA_SMI: process.env.FAKE_NVIDIA_SMI,
    FAKE_PYTHON_NODE: process.env.FAKE_PYTHON_NODE,
    FAKE_SGLANG_EXIT_WITH_PARENT: process.env.FAKE_SGLANG_EXIT_WITH_PARENT,
  };
  const bin = mkdtempSync(join(tmpdir(), 'engy-walk-bin-'));
  // `python3` and `python` are the fake with sglang: the runtime detection must find it on its own.
  for (const name of ['python3', 'python']) symlinkSync(FAKE_PYTHON, join(bin, name));
  process.env.PATH = [bin, FAKE_NVIDIA_SMI_DIR, process.env.PATH ?? ''].join(delimiter);
  process.env.FAKE_NVIDIA_SMI = gpus;
  process.env.FAKE_PYTHON_NODE = process.execPath;
  // The serve the engine in this process starts goes with this process, even one killed before its cleanup.
  Object.assign(process.env, exitWithParentEnv({}));
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(bin, { recursive: true, force: true });
  };
}

interface Panel {
  app: RunningHeadless;
  context: BrowserContext;
  page: Page;
  restore: () => void;
}

// One Chromium for the file: each walk gets its own context (no shared storage), not its own browser start.
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

/** The panel on a faked rig, opened in Chromium at 1280 px, dark. */
async function openPanel(dataDir: string, gpus: string): Promise<Panel> {
  const restore = fakeRig(gpus);
  // The rig's disk has room for the checkpoint (the catalog asks 80 GiB): the machine running the test may not.
  const app = await startHeadless({ host: '127.0.0.1', port: 0, dataDir, diskFreeBytes: () => 500 * 1024 ** 3 });
  browser ??= await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_WAIT_MS);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(app.server.url);
  return { app, context, page, restore };
}

async function closePanel(p: Panel | undefined): Promise<void> {
  await p?.context.close();
  await p?.app.stop();
  p?.restore();
}

describe('setup walk (a): a fresh 2x RTX 4090 rig to mining, through the UI only', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'engy-walk-a-'));
  let net: SimulatedNetwork;
  let panel: Panel;
  let page: Page;
  const { stage, badge, open } = setupSteps(() => page);

  beforeAll(async () => {
    net = await startSimulatedNetwork({ dataDir, epochMs: 8_000, blockMs: 250, pollSeconds: 2 });
    blankProfile(dataDir);
    panel = await openPanel(dataDir, '2x4090');
    page = panel.page;
  }, START_MS);

  afterAll(async () => {
    await closePanel(panel);
    await net?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('role, hardware, runtime with sglang detected, checkpoint', { timeout: 300_000 }, async () => {
    await page.getByText('SIMULATED NETWORK').waitFor();
    await badge('role', 'current').waitFor();
    await shoot(page, '01-first-screen');
    await page.getByRole('group', { name: 'Role' }).getByRole('button', { name: /^Mine/ }).click();
    // Ready, or (on a disk without room for the ~80 GiB download) ready once the checkpoint fits.
    await stage('hardware')
      .getByText(/^(Ready to mine\.|The GPUs can mine, but the disk cannot hold the checkpoint yet)/)
      .waitFor();
    await open('hardware');
    await page.getByTestId('verdict').waitFor();
    await shoot(page, '02-hardware');

    // The Mine page before anything is set up: every open check has a way out, and Start says why it waits.
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    const checklist = page.getByTestId('preflight-mine');
    await checklist.waitFor();
    await shoot(page, '02b-mine-preflight');
    for (const row of await checklist.locator('li[data-state]').all()) {
      if ((await row.getAttribute('data-state')) !== 'ok') expect(await row.getByRole('button').count()).toBe(1);
    }
    expect(await page.getByTestId('mine-toggle').isDisabled()).toBe(true);
    expect(await page.getByTestId('mine-toggle').getAttribute('title')).toMatch(/pre-flight checks below/);
    await page.getByRole('button', { name: 'Setup', exact: true }).click();

    await open('serve');
    // Detection runs on its own when the step opens, and says what it found per runtime.
    await page
      .getByTestId('runtime-python')
      .getByText(/sglang 0\.5\.12\.post1 found/)
      .waitFor();
    expect(await page.getByTestId('runtime-docker').textContent()).toMatch(/Docker/);
    await page.getByTestId('runtime-python').click();
    await page.getByTestId('folder-check').waitFor();
    await shoot(page, '03-serve-runtime');
    await page.getByRole('textbox', { name: 'Checkpoint folder' }).fill(CHECKPOINT_TINY);
    await page.getByRole('button', { name: 'Use this folder' }).click();
    await stage('serve').getByText('checkpoint complete').waitFor();
    await badge('serve', 'done').waitFor();
    await badge('coldkey', 'current').waitFor();
  });

  it('coldkey and hotkey created, each through the show-once words dialog', { timeout: 600_000 }, async () => {
    await open('coldkey');
    await page.getByRole('textbox', { name: 'Coldkey wallet name' }).fill('mywallet');
    await page.getByRole('textbox', { name: 'New coldkey password' }).fill(COLD_PASSWORD);
    await page.getByRole('textbox', { name: 'Repeat the password' }).fill(COLD_PASSWORD);
    await shoot(page, '04-coldkey');
    await page.getByRole('button', { name: 'Create coldkey' }).click();
    // Argon2i with btcli's real limits takes seconds (minutes under load). A refusal (the step's error) ends the
    // wait and is the failure, instead of minutes of silence.
    const dialog = page.getByTestId('secret-dialog');
    const refused = stage('coldkey').locator('.error-box');
    await dialog.or(refused).first().waitFor({ timeout: ARGON2_WAIT_MS });
    // The step's words only when it refused: reading a missing element would wait out the page's whole timeout.
    const said = (await refused.isVisible()) ? await refused.textContent() : null;
    expect(said, 'the coldkey step refused').toBeNull();
    const coldWords = (await dialog.getByTestId('mnemonic').locator('li').allTextContents()).map((t) => t.replace(/^\d+\s*/, '').trim());
    expect(coldWords).toHaveLength(12);
    const done = dialog.getByRole('button', { name: /Done/ });
    expect(await done.isDisabled()).toBe(true);
    // Escape does not close it: the words cannot be dismissed unseen.
    await page.keyboard.press('Escape');
    expect(await dialog.isVisible()).toBe(true);
    await shoot(page, '05-coldkey-words');
    await dialog.getByRole('checkbox', { name: 'I have written them down' }).check();
    await done.click();
    await dialog.waitFor({ state: 'detached' });
    await badge('coldkey', 'done').waitFor();
    expect(await stage('coldkey').textContent()).toContain('Wallet mywallet');

    await open('hotkey');
    expect(await page.getByRole('textbox', { name: 'Wallet name' }).inputValue()).toBe('mywallet');
    await page.getByRole('textbox', { name: 'Hotkey name' }).fill('miner');
    await page.getByRole('button', { name: 'Create a new hotkey' }).click();
    await dialog.waitFor();
    // The step is not done while the words are up: it completes only once they are confirmed. (The simulated
    // network's faucet step, right after the coldkey, is the current one: this walk pays from outside the panel.)
    await badge('faucet', 'current').waitFor();
    expect(await badge('hotkey', 'done').count()).toBe(0);
    await shoot(page, '06-hotkey-words');
    await dialog.getByRole('checkbox', { name: 'I have written them down' }).check();
    await dialog.getByRole('button', { name: /Done/ }).click();
    await badge('hotkey', 'done').waitFor();
    expect(await stage('hotkey').textContent()).toContain('mywallet/miner');
    // The words are gone from the page once confirmed.
    expect(await page.content()).not.toContain(coldWords.join(' '));
  });

  it('registration says what it needs, live, and is paid by the new coldkey', { timeout: 600_000 }, async () => {
    await badge('faucet', 'current').waitFor();
    await open('registration');
    const needs = page.getByTestId('registration-needs');
    await needs.getByText(/not enough: send at least/).waitFor();
    expect(await page.getByTestId('registration-cost').textContent()).toMatch(/τ \(block \d+/);
    await shoot(page, '07-registration-needs');
    // The user sends TAO to the new coldkey (outside the panel), then asks again.
    const coldkey = (await needs.getByTestId('registration-coldkey').textContent())!.trim();
    net.chain.state.setBalance(coldkey, 5n * TAO);
    await needs.getByRole('button', { name: 'Check again' }).click();
    // The ok badge exactly: the red one reads "not enough: ...".
    await needs.locator('.badge.ok', { hasText: /^enough$/ }).waitFor();
    await page.getByRole('textbox', { name: 'Coldkey password' }).fill(COLD_PASSWORD);
    await page.getByRole('button', { name: 'Register with this coldkey' }).click();
    // The coldkey is unlocked (Argon2i again) to sign, then the extrinsic waits for its block.
    await badge('registration', 'done').waitFor({ timeout: ARGON2_WAIT_MS + 100_000 });
    expect(await stage('registration').textContent()).toMatch(/uid \d+ on subnet 53/);
  });

  it('the miner key is judged by the gateway: refused with its reason, then admitted', { timeout: 300_000 }, async () => {
    await badge('minerkey', 'current').waitFor();
    await open('minerkey');
    await page.getByRole('textbox', { name: 'Miner key' }).fill('mk-not-issued-to-anyone-9999');
    await page.getByRole('button', { name: 'Save and check' }).click();
    await page.getByText(/The gateway says: "unknown miner key"/).waitFor();
    await badge('minerkey', 'current').waitFor();
    expect(await page.content()).not.toContain('mk-not-issued-to-anyone-9999');
    await shoot(page, '08-minerkey-denied');
    await page.getByRole('textbox', { name: 'Miner key' }).fill(HONEST_KEY);
    await page.getByRole('button', { name: 'Save and check' }).click();
    await badge('minerkey', 'done').waitFor();
    await badge('start', 'current').waitFor();
    await open('start');
    await shoot(page, '09-ready-to-start');
  });

  it('starts on the Mine page and mines; Setup agrees while it runs', { timeout: 450_000 }, async () => {
    await startMining(page);
    await page.getByTestId('miner-phase').getByText('earning').waitFor({ timeout: 400_000 });
    await shoot(page, '10-mining');
    await page.getByRole('button', { name: 'Setup', exact: true }).click();
    await badge('start', 'done').waitFor();
    for (const id of ['role', 'hardware', 'serve', 'coldkey', 'hotkey', 'registration', 'minerkey']) await badge(id, 'done').waitFor();
    await shoot(page, '11-setup-while-mining');
  });
});

describe('setup walk (b): a 1x RTX 4090 rig validates instead', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'engy-walk-b-'));
  let panel: Panel;
  let page: Page;

  // A fresh data dir (no settings file at all): the very first start of the panel.
  beforeAll(async () => {
    panel = await openPanel(dataDir, '1x4090');
    page = panel.page;
  }, START_MS);

  afterAll(async () => {
    await closePanel(panel);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('offers buttons, not text: what works, then Validate instead', { timeout: 300_000 }, async () => {
    await page.getByRole('group', { name: 'Role' }).getByRole('button', { name: /^Mine/ }).click();
    const choices = page.getByTestId('hardware-choices');
    await choices.waitFor();
    const verdict = (await page.getByTestId('verdict').textContent()) ?? '';
    if (/Cannot mine/.test(verdict)) {
      // Blocked (host RAM too small to offload): nothing after it is "current", and no download is offered.
      await page.getByTestId('stage-hardware').locator(':scope > .badge', { hasText: 'blocked' }).waitFor();
      expect(await page.locator('.stage.current').count()).toBe(0);
    } else {
      // Enough RAM to offload: the step waits for a choice instead of passing as done.
      await page.getByTestId('stage-hardware').locator(':scope > .badge', { hasText: 'current' }).waitFor();
      expect(await choices.getByRole('button', { name: 'Mine anyway (slowly)' }).count()).toBe(1);
    }
    expect(await page.getByRole('button', { name: /Download/ }).count()).toBe(0);
    await choices.getByRole('button', { name: 'Show what works' }).click();
    await page.getByTestId('alternative-two-4090').waitFor();
    await page.getByTestId('alternative-one-48gb').waitFor();
    const offload = (await page.getByTestId('alternative-offload').textContent()) ?? '';
    expect(offload).toMatch(/Host RAM needed.*about \d+ GiB/);
    expect(offload).toMatch(/Expected speed.*tokens\/s per request/);
    await shoot(page, '12-one-4090-choices');
    await choices.getByRole('button', { name: 'Validate instead' }).click();
    await page.getByTestId('stage-role').getByText('This machine will validate.').waitFor();
    // The steps follow the role: no hardware, serve or miner key step for a validator.
    for (const id of ['hardware', 'serve', 'minerkey']) expect(await page.getByTestId(`stage-${id}`).count()).toBe(0);
    await page.getByTestId('stage-coldkey').locator(':scope > .badge', { hasText: 'current' }).waitFor();
    expect(await page.getByTestId('stage-start').textContent()).toContain('Start validating');
    await shoot(page, '13-validate-instead');
  });
});
