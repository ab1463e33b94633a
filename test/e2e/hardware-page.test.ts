import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { WebSocket } from 'ws';
import { statfsSync } from 'node:fs';
import { openSetupStage } from '../helpers/setup-stage.ts';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { startHeadlessChild, type HeadlessChild } from '../helpers/headless-process.ts';
import { fakeNvidiaEnv } from '../helpers/fake-nvidia-smi.ts';

describe('headless shell + hardware page (Chromium, fake 2x RTX 4090)', () => {
  let engine: HeadlessChild;
  let browser: Browser;

  beforeAll(async () => {
    engine = await startHeadlessChild(fakeNvidiaEnv('2x4090'));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await engine?.stop();
  });

  it('prints a tokened loopback URL and refuses requests without the token (401)', async () => {
    expect(engine.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
    const bare = await fetch(`${engine.origin}/`);
    expect(bare.status).toBe(401);
    const wrong = await fetch(`${engine.origin}/?token=nope`);
    expect(wrong.status).toBe(401);
    const asset = await fetch(`${engine.origin}/favicon.svg`);
    expect(asset.status).toBe(401);
    const good = await fetch(engine.url);
    expect(good.status).toBe(200);
    expect(good.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const wsStatus = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${engine.origin.replace('http', 'ws')}/ws`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    expect(wsStatus).toBe(401);
  });

  it('shows the 2x4090 rig ready with a tp2 plan', async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 1500 } });
    await page.goto(engine.url);
    await page.getByRole('group', { name: 'Role' }).getByRole('button', { name: /^Mine/ }).click();
    await openSetupStage(page, 'hardware', 'verdict');
    // Green only with room for the ~80 GiB download in the (fresh) data dir: this disk decides which.
    const st = statfsSync(engine.dataDir);
    const roomy = st.bavail * st.bsize >= 80 * 1024 ** 3;
    expect(await page.getByTestId('verdict').textContent()).toBe(roomy ? 'Ready to mine' : 'Ready to mine once the checkpoint fits on disk');
    if (!roomy) expect(await page.getByTestId('hardware-disk').textContent()).toMatch(/a first download asks for 80\.0 GiB free \(the files are about 35 GB; .*\): free \d+\.\d GiB more/);
    expect(await page.getByTestId('gpu-card').count()).toBe(2);
    expect(await page.getByTestId('gpu-card').first().textContent()).toContain('NVIDIA GeForce RTX 4090');
    const plan = await page.getByTestId('engine-plan').textContent();
    expect(plan).toContain('tp2');
    expect(plan).toContain('--tp-size 2');
    expect(plan).toContain('NCCL_P2P_DISABLE=1');
    expect(plan).toContain('--context-length 262144');
    expect(await page.getByTestId('connection').textContent()).toContain('connected');
    await page.screenshot({ path: screenshotPath('hardware-2x4090'), fullPage: true });
    await page.close();
  });
});
