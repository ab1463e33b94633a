// The simulated network's τ price moves, and the engine follows it on the real source's cadence: the
// price service reads every PRICE_REFRESH_MS (10 min) on any network, and the simulated market quotes a
// different price at each read, so a long demo's money figures are not a price frozen at start. On a
// controlled clock (test/doubles/manual-clock.ts), against the price double over loopback HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PRICE_REFRESH_MS, TauPriceService } from '../../../electron/engine/earnings/tau-price.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import { ManualClock } from '../../doubles/manual-clock.ts';
import { simulatedMarket, startPriceDouble, type PriceDouble } from '../../doubles/price-source.ts';
import { SIM_TAO_PRICES } from '../../doubles/sim-network/sim-network.ts';

describe('the simulated τ price over a long run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engy-sim-price-'));
  let double: PriceDouble | undefined;
  let svc: TauPriceService | undefined;
  afterEach(async () => {
    svc?.dispose();
    await double?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is read every 10 min, never in between, and each read finds the quote of its time', { timeout: 60_000 }, async () => {
    const start = 1_800_000_000_000;
    const clock = new ManualClock(start);
    const market = simulatedMarket(start, () => clock.now());
    double = await startPriceDouble(SIM_TAO_PRICES, market);
    svc = new TauPriceService({ config: () => ({ priceUrl: double!.url, currency: 'usd' }), cacheFile: join(dir, 'price.json'), log: silentLogger, clock });
    const want = (t: number) => Math.round(SIM_TAO_PRICES.usd * market.factor(t) * 100) / 100;

    svc.start();
    await expect.poll(() => svc!.snapshot().at, { timeout: 20_000 }).toBe(start);
    expect(svc.snapshot().perTao).toBe(SIM_TAO_PRICES.usd);
    const seen = [svc.snapshot().perTao];
    for (let i = 1; i <= 6; i++) {
      await expect.poll(() => clock.pending(), { timeout: 20_000 }).toBe(1);
      // Nothing is read before the 10 min are up.
      await clock.advance(PRICE_REFRESH_MS - 1);
      expect(double.requests).toBe(i);
      await clock.advance(1);
      const at = start + i * PRICE_REFRESH_MS;
      await expect.poll(() => svc!.snapshot().at, { timeout: 20_000 }).toBe(at);
      expect(svc.snapshot().perTao).toBe(want(at));
      seen.push(svc.snapshot().perTao);
    }
    // One hour of reads: every quote differs from the one before it, all within the market's ±5 %.
    for (let i = 1; i < seen.length; i++) expect(seen[i], `read ${i}`).not.toBe(seen[i - 1]);
    for (const p of seen) expect(Math.abs(p! / SIM_TAO_PRICES.usd - 1)).toBeLessThanOrEqual(0.05);
  });

  it('quotes every currency the simulated network offers, moved by the same factor, and stays deterministic', async () => {
    const market = simulatedMarket(0, () => 2 * 3_600_000);
    const f = market.factor(2 * 3_600_000);
    expect(f).not.toBe(1);
    expect(market.factor(2 * 3_600_000)).toBe(f);
    double = await startPriceDouble(SIM_TAO_PRICES, market);
    const body = (await (await fetch(`${double.url}/api/v3/simple/price?ids=bittensor&vs_currencies=usd,eur,gbp`)).json()) as { bittensor: Record<string, number> };
    for (const [c, base] of Object.entries(SIM_TAO_PRICES)) expect(body.bittensor[c], c).toBe(Math.round(base * f * 100) / 100);
  });
});
