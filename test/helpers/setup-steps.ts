// Shared pieces of the setup walks (over WebSocket and over the desktop transport): a blank first-run
// profile on the simulated network, and the Setup page's step locators.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { Settings } from '../../shared/settings.ts';
import { dataPaths } from '../../electron/engine/lib/paths.ts';
import { MinerKeyStore } from '../../electron/engine/wallet/miner-key-store.ts';

/** A blank profile: only the network's addresses are kept; everything first run chooses is reset, and the miner key is removed. */
export function blankProfile(dataDir: string): void {
  const file = dataPaths(dataDir).settings;
  const s = JSON.parse(readFileSync(file, 'utf8')) as Settings;
  const blank: Settings = {
    ...s,
    role: null,
    theme: 'system',
    wallet: { path: s.wallet.path, name: null, hotkey: null },
    mining: { ...s.mining, runtime: null, externalServeUrls: [], checkpointDir: null },
  };
  writeFileSync(file, JSON.stringify(blank));
  new MinerKeyStore({ secretsDir: dataPaths(dataDir).secrets, env: {} }).clear();
}

/**
 * The Setup page's steps: a step's row, its own state badge, and opening it (a no-op when already open).
 * `page` is a getter so a describe can take these before its beforeAll opens the page.
 */
export function setupSteps(page: () => Page) {
  const stage = (id: string) => page().getByTestId(`stage-${id}`);
  const badge = (id: string, text: string) => stage(id).locator(':scope > .badge', { hasText: text });
  const open = async (id: string): Promise<void> => {
    const toggle = stage(id).locator('.stage-toggle');
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  };
  /**
   * Once a role that mines is chosen: waits for the hardware step (ready, or ready once the checkpoint fits on a
   * disk without room for the ~80 GiB download, as here), then points the serve step at a serve already running
   * and a checkpoint folder. The caller waits for the step's outcome it proves.
   */
  const useExternalServe = async (serveUrl: string, checkpointDir: string): Promise<void> => {
    await stage('hardware')
      .getByText(/^(Ready to mine\.|The GPUs can mine, but the disk cannot hold the checkpoint yet)/)
      .waitFor();
    await open('serve');
    await page()
      .getByRole('group', { name: 'Serve runtime' })
      .getByRole('button', { name: /already run/ })
      .click();
    await page().getByRole('textbox', { name: 'Serve URLs' }).fill(serveUrl);
    await page().getByRole('button', { name: 'Save URL' }).click();
    await page().getByRole('textbox', { name: 'Checkpoint folder' }).fill(checkpointDir);
    await page().getByRole('button', { name: 'Use this folder' }).click();
  };
  return { stage, badge, open, useExternalServe };
}
