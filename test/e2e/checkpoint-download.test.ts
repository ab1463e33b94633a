import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { openSetupStage } from '../helpers/setup-stage.ts';
import { launchBrowser, screenshotPath } from '../helpers/browser.ts';
import { startHeadlessChild, type HeadlessChild } from '../helpers/headless-process.ts';
import { fakeNvidiaEnv } from '../helpers/fake-nvidia-smi.ts';
import { HfHubDouble } from '../doubles/hf-hub.ts';

const REPO = 'Qwen/Qwen3.6-35B-A3B-FP8';
const config = JSON.stringify({ architectures: ['Qwen3_5MoeForCausalLM'], hidden_size: 2048 });
const shard1 = new Uint8Array(300_000).map((_, i) => (i * 31) % 251);
const shard2 = new Uint8Array(200_000).map((_, i) => (i * 17) % 253);

/** The identity PROTOCOL section 3 defines, computed here independently of the engine. */
function expectedIdentity(): string {
  const h = createHash('sha256');
  h.update(config);
  h.update('model-00001-of-00002.safetensors');
  h.update(String(shard1.length));
  h.update('model-00002-of-00002.safetensors');
  h.update(String(shard2.length));
  return h.digest('hex');
}

describe('checkpoint download in the UI (hub double, Chromium)', () => {
  let hub: HfHubDouble;
  let engine: HeadlessChild;
  let browser: Browser;

  beforeAll(async () => {
    hub = new HfHubDouble({ repo: REPO, files: { 'config.json': config, 'model-00001-of-00002.safetensors': shard1, 'model-00002-of-00002.safetensors': shard2 } });
    const endpoint = await hub.start();
    engine = await startHeadlessChild({ ...fakeNvidiaEnv('2x4090'), HF_ENDPOINT: endpoint });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await engine?.stop();
    await hub?.close();
  });

  it('downloads, verifies the folder and shows its identity beside the published root', async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 1100 } });
    await page.goto(engine.url);
    await page.getByRole('group', { name: 'Role' }).getByRole('button', { name: /^Mine/ }).click();
    await openSetupStage(page, 'serve', 'checkpoint');
    const card = page.getByTestId('checkpoint');
    expect(await card.textContent()).toContain('absent');
    await card.getByRole('button', { name: /Download/ }).click();
    await card.getByText('complete', { exact: true }).waitFor({ timeout: 20_000 });
    const text = (await card.textContent()) ?? '';
    expect(text).toContain(expectedIdentity());
    expect(text).toContain('15ef6d8cf34edcb340a24d0d124303bbe91f0c435cb0041db220bfcc7087c610');
    await page.screenshot({ path: screenshotPath('setup-checkpoint'), fullPage: true });
  });
});
