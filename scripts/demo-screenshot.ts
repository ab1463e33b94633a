// Writes docs/images/demo.png: the Mine page of the app running against the simulated network
// (`engy-panel demo`), taken once the rig is active and an epoch has been verified and landed.
// Run from a checkout: `node scripts/demo-screenshot.ts` (needs Debian's chromium, see test/helpers/browser.ts).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser } from '../test/helpers/browser.ts';
import { startSimulatedNetwork } from '../test/doubles/sim-network/sim-network.ts';

const OUT = join(import.meta.dirname, '..', 'docs', 'images', 'demo.png');

async function until(what: string, ms: number, pred: () => boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'engy-demo-shot-'));
const net = await startSimulatedNetwork({ dataDir, epochMs: 10_000, blockMs: 500, pollSeconds: 2 });
try {
  const app = await net.startApp();
  await until('the rig to be active', 90_000, () => app.engine.mining.minerSnapshots()[0]?.phase === 'active');
  await until('a landed submission', 60_000, () => app.engine.validating.snapshot()?.recentSubmissions.some((s) => s.ok) ?? false);
  // A little more traffic so the cards and the timeline have something to show.
  await new Promise((r) => setTimeout(r, 5_000));
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    await page.goto(app.server.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Mine', exact: true }).click();
    await page
      .getByTestId('miner-phase')
      .filter({ hasText: /^active$/ })
      .waitFor({ timeout: 30_000 });
    mkdirSync(join(OUT, '..'), { recursive: true });
    await page.screenshot({ path: OUT });
    process.stdout.write(`wrote ${OUT}\n`);
  } finally {
    await browser.close();
  }
} finally {
  await net.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
