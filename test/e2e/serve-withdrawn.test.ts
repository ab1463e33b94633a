// Issue 32 in the browser: the headless engine mines an external fake serve through the gateway double
// while buyer traffic flows; the serve is killed, and the Mine page says "withdrawn: serve unhealthy"
// with its cause while the engine's /metrics carries engy_miner_withdrawn; the gateway routes nothing
// to the sick engine once its legs have closed; the serve is restarted on its port and the page
// returns to a live state; acceptance over the whole run stays >= 99%.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { defaultSettings, type Settings } from '../../shared/settings.ts';
import { dataPaths } from '../../electron/engine/lib/paths.ts';
import { MinerKeyStore } from '../../electron/engine/wallet/miner-key-store.ts';
import { createHotkey } from '../../electron/engine/wallet/hotkey-create.ts';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { FAKE_NVIDIA_SMI_DIR } from '../helpers/fake-nvidia-smi.ts';
import { startHeadlessChild, type HeadlessChild } from '../helpers/headless-process.ts';
import { traffic } from '../helpers/gateway-traffic.ts';
import { CHECKPOINT_TINY } from '../doubles/fake-sglang/spawn.ts';
import type { GatewayDouble } from '../doubles/gateway/gateway-double.ts';
import { startDevChain, type RunningDevChain } from '../doubles/dev-chain/index.ts';
import { devKeys, SN53 } from '../doubles/dev-chain/sn53-seed.ts';
import { KEY, startFakeServe, startGateway, until, type FakeServe } from '../integration/miner/harness.ts';

/** A fake serve, a dev chain, Chromium and an engine from source: minutes of CPU on a two-core box at load ~30. */
const HOOK_MS = 240_000;

describe('a withdrawn engine on the Mine page and in /metrics (fake serve killed and restarted, Chromium)', () => {
  let engine: HeadlessChild | undefined;
  let browser: Browser | undefined;
  let chain: RunningDevChain | undefined;
  let gw: GatewayDouble | undefined;
  let serve: FakeServe | undefined;
  let flow: ReturnType<typeof traffic> | undefined;

  beforeAll(async () => {
    const hookEnds = Date.now() + HOOK_MS;
    serve = await startFakeServe();
    gw = startGateway({ probe: false });
    await gw.start();
    const dataDir = mkdtempSync(join(tmpdir(), 'engy-withdrawn-e2e-'));
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
    const d = defaultSettings();
    const settings: Settings = {
      ...d,
      role: 'mine',
      wallet: { path: walletPath, name: 'rig', hotkey: 'default' },
      mining: { ...d.mining, runtime: 'external', externalServeUrls: [serve.url], checkpointDir: CHECKPOINT_TINY, gatewayUrl: gw.url },
      validating: { ...d.validating, chainUrl: chain.url },
    };
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(dataPaths(dataDir).settings, JSON.stringify(settings));
    new MinerKeyStore({ secretsDir: dataPaths(dataDir).secrets, env: {} }).set(KEY);
    const env = { ...process.env, PATH: [FAKE_NVIDIA_SMI_DIR, process.env.PATH ?? ''].join(delimiter), FAKE_NVIDIA_SMI: '2x4090' };
    browser = await launchBrowser();
    // The engine starts last, and its own wait for the URL ends 10 s before the hook's: a wait that ends
    // there kills its child. At load ~30 the steps above and the engine's start (from source) took more than
    // the 120 s this hook had, vitest gave up on the hook first, ran afterAll with no engine yet, and the
    // engine that then came up outlived the file.
    engine = await startHeadlessChild(env, [], dataDir, Math.max(1_000, hookEnds - Date.now() - 10_000));
  }, HOOK_MS);

  afterAll(async () => {
    await flow?.stop().catch(() => {});
    await browser?.close().catch(() => {});
    await engine?.stop().catch(() => {});
    await gw?.stop().catch(() => {});
    await serve?.stop().catch(() => {});
    await chain?.close().catch(() => {});
  }, 60_000);

  const metrics = async (): Promise<string> => (await fetch(`${engine!.origin}/metrics`, { headers: { authorization: `Bearer ${engine!.token}` } })).text();

  it('shows "withdrawn: serve unhealthy" with its cause, routes nothing to the sick engine, comes back, acceptance >= 99%', { timeout: 540_000 }, async () => {
    const page: Page = await browser!.newPage({ viewport: { width: 1280, height: 1200 } });
    await page.goto(engine!.url);
    await page.getByRole('button', { name: 'Mine', exact: true }).click();
    await page.getByTestId('preflight-summary').getByText('all clear').waitFor({ timeout: 60_000 });
    await page.getByTestId('start-skip-rehearsal').click();
    // The gateway double admits the legs (its probe is off): buyer traffic reaches the engine.
    // (The pre-flight's key check shows up at the gateway too, as a worker without legs.)
    const rig = () => gw!.view().find((w) => w.legs.length > 0);
    await until(() => rig() !== undefined, 90_000, "the engine's legs at the gateway").catch(async (e: Error) => {
      throw new Error(`${e.message}; gateway ${JSON.stringify(gw!.view())}; page: ${(await page.locator('main').textContent())?.slice(0, 1500)}; engine: ${engine!.output().slice(-1500)}`);
    });
    const workerId = rig()!.workerId;
    flow = traffic(gw!, 2);
    const t = flow;
    const served = () => t.routed.filter((r) => r.result.response?.commitment).length;
    await until(() => served() >= 20, 120_000, '20 served requests before the kill');

    // The serve dies.
    const port = Number(new URL(serve!.url).port);
    serve!.proc.kill('SIGKILL');
    const withdrawn = page.getByTestId('serve-withdrawn');
    await withdrawn.waitFor({ timeout: 60_000 });
    const text = (await withdrawn.textContent()) ?? '';
    expect(text).toMatch(/^withdrawn: serve unhealthy \(the serve (cannot be reached|'s \/health answered)[^)]*\), since /);
    expect(await page.getByTestId('miner-phase').textContent()).toMatch(/withdrawn/i);
    await expect.poll(metrics, { timeout: 30_000 }).toMatch(/^engy_miner_withdrawn\{worker="0",reason="serve unhealthy",cause="the serve[^"]*"\} 1$/m);
    expect(await metrics()).toContain('engy_miner_state{state="withdrawn"} 1\n');
    // Drained, not dropped: the gateway loses every leg, and from then on routes it nothing.
    await until(() => (gw!.view().find((w) => w.workerId === workerId)?.legs.length ?? 0) === 0, 60_000, 'the legs to close at the gateway');
    const closedAt = Date.now();
    for (const width of [1280, 800]) {
      await page.setViewportSize({ width, height: 1200 });
      await withdrawn.waitFor({ timeout: 10_000 });
      await page.screenshot({ path: screenshotPath(`mine-withdrawn-${width}`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 1200 });
    // A few health intervals with the serve down: nothing is routed while it is sick.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(t.routed.filter((r) => r.sentAt > closedAt)).toEqual([]);

    // The serve comes back on its port; two good probes later the legs return and the page goes live.
    serve = await startFakeServe(['--port', String(port)]);
    const restartedAt = Date.now();
    await withdrawn.waitFor({ state: 'detached', timeout: 90_000 });
    await expect.poll(async () => (await page.getByTestId('miner-phase').textContent()) ?? '', { timeout: 30_000 }).not.toMatch(/withdrawn/i);
    await expect.poll(metrics, { timeout: 30_000 }).not.toMatch(/^engy_miner_withdrawn\{worker="0"[^}]*\} 1$/m);
    await until(() => t.routed.filter((r) => r.sentAt > restartedAt && r.result.response?.commitment).length >= 10, 120_000, 'the engine serving again');
    // Enough traffic that the few requests caught by the kill itself (in flight, or routed before the
    // engine's health gate saw the serve gone: about 6 in a first run) stay well under 1%.
    await until(() => t.routed.length >= 1_000, 300_000, '1000 routed requests');
    await t.stop();
    flow = undefined;

    // Every request routed after the legs closed went to the restarted, healthy serve and was served.
    expect(t.routed.filter((r) => r.sentAt > closedAt && !r.result.response?.commitment).map((r) => r.result.response?.error)).toEqual([]);
    const answered = t.routed.filter((r) => !r.result.cancelled);
    const failed = answered.filter((r) => !r.result.response?.commitment).map((r) => r.result.response?.error);
    expect((answered.length - failed.length) / answered.length, JSON.stringify(failed)).toBeGreaterThanOrEqual(0.99);
    await page.close();
  });
});
