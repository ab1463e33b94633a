import { chromium, type Browser } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { staleBecause } from '../../electron/renderer-stamp.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'test-results');

/** Debian's Chromium, headless, with the background-networking noise off (this machine has no internet). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium); .ci/run does this.`);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  warnIfUiStale();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'],
  });
}

let warned = false;
/** e2e pages serve dist-renderer/ as built: after a pull or an edit without `npx vite build`, they test yesterday's UI. Said once per file. */
function warnIfUiStale(): void {
  const root = join(import.meta.dirname, '..', '..');
  if (warned || !existsSync(join(root, 'dist-renderer', 'index.html'))) return;
  let why: string | null;
  try {
    why = staleBecause(root, join(root, 'dist-renderer'));
  } catch {
    return;
  }
  if (why === null) return;
  warned = true;
  process.stderr.write(`\nThe built UI in dist-renderer/ is out of date (${why}): these pages show the old UI; run \`npx vite build\` first.\n\n`);
}

export function screenshotPath(name: string): string {
  return join(SCREENSHOT_DIR, `${name}.png`);
}
