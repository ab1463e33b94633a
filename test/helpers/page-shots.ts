// Screenshots of one page state at both widths (1280 and 800 px) and both themes, whole: the main pane
// scrolls on its own, so the window grows to its content first. The page is left at 1280 px, dark.
// Every shot is also checked by bounding boxes: an alert that covers a control fails the walk (issue 28:
// "the toast never covers a button in any screenshot"), whichever walk takes it.
import type { Page } from 'playwright-core';
import { screenshotPath } from './browser.ts';
import { alertsCoveringControls } from './toast-overlap.ts';

export async function pageShots(page: Page, name: string): Promise<void> {
  for (const width of [1280, 800]) {
    for (const scheme of ['dark', 'light'] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      const tall = await page.evaluate(() => {
        const main = document.querySelector('.main');
        main?.scrollTo(0, 0);
        return main?.scrollHeight ?? 900;
      });
      await page.setViewportSize({ width, height: Math.min(Math.max(900, tall + 8), 6000) });
      const { covered } = await alertsCoveringControls(page);
      if (covered.length > 0) throw new Error(`${name} at ${width} px (${scheme}): an alert covers ${covered.join(', ')}`);
      await page.screenshot({ path: screenshotPath(`${name}-${width}-${scheme}`), fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
}
