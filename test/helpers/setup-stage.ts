// Opens one Setup step until what it holds is visible. The current step opens by itself, and which step is
// current depends on the machine (a disk too small for the checkpoint keeps the hardware step open), so a
// blind click on a step's toggle could close the very step a test wants: click only while it is closed.
import type { Page } from 'playwright-core';
import { until } from './until.ts';

export async function openSetupStage(page: Page, stage: string, content: string, ms = 30_000): Promise<void> {
  const toggle = page.getByTestId(`stage-${stage}`).locator('.stage-toggle');
  await until(
    `the ${stage} step showing ${content}`,
    ms,
    async () => {
      if (await page.getByTestId(content).first().isVisible()) return true;
      if ((await toggle.getAttribute('aria-expanded').catch(() => null)) === 'false') await toggle.click().catch(() => undefined);
      return false;
    },
    500,
  );
}
