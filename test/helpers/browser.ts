import { chromium, type Browser } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { staleBecause } from '../../electron/renderer-stamp.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'test-results');

/**
 * `ENGY_SCREENSHOTS=off` (.ci/run sets it): the tests' captures in test-results/ are for people to look
 * at, and no assertion reads them (every check before a capture still runs: overflow, alerts over
 * controls, axe). A CI run nobody looks at then skips the PNG encoding of about 200 pages, CPU the
 * two-core box's tests need (docs/testing.md).
 */
export const SCREENSHOTS_OFF = process.env.ENGY_SCREENSHOTS === 'off';
let screenshotsStubbed = false;

/** Makes `screenshot` on every page and locator of this process a no-op (Playwright has no switch for it). */
async function stubScreenshots(browser: Browser): Promise<void> {
  if (screenshotsStubbed) return;
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    for (const proto of [Object.getPrototypeOf(page) as { screenshot: unknown }, Object.getPrototypeOf(page.locator('body')) as { screenshot: unknown }]) {
      proto.screenshot = async () => Buffer.alloc(0);
    }
    screenshotsStubbed = true;
  } finally {
    await context.close();
  }
}

/** Debian's Chromium, headless, with the background-networking noise off (this machine has no internet). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium); .ci/run does this.`);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  warnIfUiStale();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'],
  });
  if (SCREENSHOTS_OFF) {
    try {
      await stubScreenshots(browser);
    } catch (e) {
      await browser.close();
      throw e;
    }
  }
  return browser;
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
