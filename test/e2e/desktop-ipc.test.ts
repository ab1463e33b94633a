// The renderer over the desktop transport in a real browser: Chromium runs the built renderer, its
// window.engy is bridged to the real preload's object in a booted desktop main (stand-in electron),
// and the engine runs in its utility process against the simulated network. From a prepared profile
// to mining through the Mine page, then the engine process is killed: the page says it is restarting
// and comes back by itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { FAKE_NVIDIA_SMI_DIR } from '../helpers/fake-nvidia-smi.ts';
import { desktopEnv, ensureMainBuilt, ensureRendererBuilt, REPO, startDesktopMain, waitUntil, type DesktopMain } from '../helpers/desktop-main.ts';
import { bridgeDesktopTransport, reloadDesktopPage, serveRenderer } from '../helpers/desktop-page.ts';
import { startSimulatedNetwork, type SimulatedNetwork } from '../doubles/sim-network/sim-network.ts';

interface State {
  utilityPids: Array<number | null>;
  windows: Array<{ visible: boolean }>;
}

describe('desktop transport in Chromium (IPC e2e mode)', () => {
  const root = mkdtempSync(join(tmpdir(), 'engy-desktop-ipc-'));
  // Where the stand-in's app.getPath('userData') is: XDG_CONFIG_HOME/<package name>.
  const dataDir = join(root, 'config', 'engy-panel');
  let net: SimulatedNetwork;
  let main: DesktopMain;
  let site: Awaited<ReturnType<typeof serveRenderer>>;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensureMainBuilt();
    await ensureRendererBuilt();
    net = await startSimulatedNetwork({ dataDir, epochMs: 8_000, blockMs: 250, pollSeconds: 2 });
    main = startDesktopMain(join(REPO, 'dist', 'electron', 'main.js'), desktopEnv(root, { PATH: [FAKE_NVIDIA_SMI_DIR, process.env.PATH ?? ''].join(delimiter), FAKE_NVIDIA_SMI: '2x4090' }));
    await waitUntil(async () => (await main.call<State>('state')).windows.some((w) => w.visible), 120_000, `the desktop window\n${main.output().slice(-2000)}`);
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
    await browser?.close();
    await main?.kill();
    await site?.close();
    await net?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('drives the Mine page over IPC to mining', { timeout: 240_000 }, async () => {
    await page.getByText('SIMULATED NETWORK').waitFor({ timeout: 60_000 });
    // The indicator may still say it is connecting when the banner's words arrive on a loaded box.
    await expect.poll(async () => page.getByTestId('connection').textContent(), { timeout: 30_000 }).toMatch(/connected/);
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    await page.getByTestId('preflight-summary').getByText('all clear').waitFor({ timeout: 60_000 });
    await page.getByTestId('mine-toggle').click();
    await page.getByTestId('miner-phase').getByText('earning').waitFor({ timeout: 120_000 });
    await page.screenshot({ path: screenshotPath('desktop-ipc-mining-1280-dark') });
    // The desktop engine has the health lines too: the miner's state changes are in its log (the Logs page).
    // ('earning' is the page's word for the phase 'active'; log lines reach the hub in 100 ms batches.)
    const minerLines = async (): Promise<string[]> => {
      const r = (await page.evaluate(() => (window as unknown as { engy: { invoke(m: string, r: unknown): Promise<unknown> } }).engy.invoke('logs.recent', { source: 'miner', limit: 500 }))) as {
        ok: boolean;
        value?: { lines: Array<{ msg: string }> };
      };
      return r.ok ? (r.value?.lines ?? []).map((l) => l.msg) : [];
    };
    await expect.poll(async () => (await minerLines()).some((l) => /^state (\[[^\]]+\] )?active: /.test(l)), { timeout: 20_000 }).toBe(true);
  });

  it('a killed engine process: the page says it is restarting, then works again', { timeout: 240_000 }, async () => {
    const st = await main.call<State>('state');
    const pid = st.utilityPids.filter((p) => p !== null).at(-1)!;
    process.kill(pid, 'SIGKILL');
    const banner = page.getByTestId('connection-banner');
    await banner.getByText('The engine stopped unexpectedly and is restarting').waitFor({ timeout: 60_000 });
    for (const [width, scheme] of [
      [1280, 'dark'],
      [800, 'light'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: screenshotPath(`desktop-ipc-engine-restarting-${width}-${scheme}`) });
    }
    await banner.waitFor({ state: 'detached', timeout: 120_000 });
    // The indicator may still say it is connecting when the banner's words arrive on a loaded box.
    await expect.poll(async () => page.getByTestId('connection').textContent(), { timeout: 30_000 }).toMatch(/connected/);
    expect((await main.call<State>('state')).windows[0]!.visible).toBe(true);
    // Calls work again: a setting changed through the page's transport reaches the new engine.
    const r = await page.evaluate(() => (window as unknown as { engy: { invoke(m: string, r: unknown): Promise<unknown> } }).engy.invoke('settings.get', null));
    expect(r).toMatchObject({ ok: true });
  });
});
