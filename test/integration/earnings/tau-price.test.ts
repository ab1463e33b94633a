// The τ price: read from a local price double (a real HTTP server speaking the source's shape), cached on disk
// with its time, backed off after failures, and refused when the answer is not a usable price.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPrice, TauPriceService } from '../../../electron/engine/earnings/tau-price.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import type { Clock } from '../../../electron/engine/lib/clock.ts';
import type { Currency } from '../../../shared/settings.ts';
import { startPriceDouble, type PriceDouble } from '../../doubles/price-source.ts';

/** TEST CLOCK: time moves only when the test says; timers are recorded, run by hand. */
function manualClock() {
  let now = 1_000_000;
  const timers: Array<{ fn: () => void; at: number }> = [];
  const clock: Clock = { now: () => now, setTimeout: (fn, ms) => timers.push({ fn, at: now + ms }), clearTimeout: () => undefined };
  return { clock, timers, advance: (ms: number) => (now += ms) };
}

describe('τ price', () => {
  let double: PriceDouble;
  const dir = mkdtempSync(join(tmpdir(), 'engy-price-'));
  beforeAll(async () => {
    double = await startPriceDouble({ usd: 412.5, eur: 380 });
  });
  afterAll(async () => {
    await double.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the price in the chosen currency, names the source and time, and caches it across a restart', async () => {
    const t = manualClock();
    let currency: Currency = 'usd';
    const cacheFile = join(dir, 'a.json');
    const svc = new TauPriceService({ config: () => ({ priceUrl: double.url, currency }), cacheFile, log: silentLogger, clock: t.clock });
    expect(svc.snapshot()).toMatchObject({ perTao: null, at: null, error: null });
    const s = await svc.refresh();
    expect(s).toMatchObject({ currency: 'usd', perTao: 412.5, source: new URL(double.url).host, at: 1_000_000, error: null });
    // Another currency: no price until read (a USD price is no EUR price).
    currency = 'eur';
    expect(svc.snapshot().perTao).toBeNull();
    expect((await svc.refresh()).perTao).toBe(380);
    // A restart with the source down: the cached price, with the time it was read, and the failure said.
    double.mode = 'down';
    t.advance(60_000);
    const again = new TauPriceService({ config: () => ({ priceUrl: double.url, currency }), cacheFile, log: silentLogger, clock: t.clock });
    expect(again.snapshot()).toMatchObject({ perTao: 380, at: 1_000_000 });
    const failed = await again.refresh();
    expect(failed).toMatchObject({ perTao: 380, at: 1_000_000 });
    expect(failed.error).toMatch(/^The τ price could not be read from 127\.0\.0\.1:\d+: it answered HTTP 503\.$/);
    double.mode = 'ok';
  });

  it("names the simulated network's price as simulated, and never serves a real source's cached price as it", async () => {
    const t = manualClock();
    const cacheFile = join(dir, 'sim.json');
    let simulated = true;
    const svc = new TauPriceService({ config: () => ({ priceUrl: double.url, currency: 'usd', simulated }), cacheFile, log: silentLogger, clock: t.clock });
    const s = await svc.refresh();
    expect(s).toMatchObject({ perTao: 412.5, source: `simulated market at ${new URL(double.url).host}`, error: null });
    // The same URL named as a real source: the simulated reading is not its price.
    simulated = false;
    expect(svc.snapshot()).toMatchObject({ perTao: null, source: new URL(double.url).host });
  });

  it('backs off after a failure (30 s, doubling, capped at 10 min) and returns to 10 min once it reads', async () => {
    const t = manualClock();
    double.mode = 'down';
    const svc = new TauPriceService({ config: () => ({ priceUrl: double.url, currency: 'usd' }), cacheFile: join(dir, 'b.json'), log: silentLogger, clock: t.clock, random: () => 0.5 });
    svc.start();
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      await expect.poll(() => t.timers.length, { timeout: 20_000 }).toBe(i + 1);
      delays.push(t.timers[i]!.at - 1_000_000);
      if (i === 5) double.mode = 'ok';
      t.timers[i]!.fn();
    }
    expect(delays).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000]);
    await expect.poll(() => svc.snapshot().perTao, { timeout: 20_000 }).toBe(412.5);
    svc.dispose();
  });

  it('refuses answers that are not a usable price (hostile shapes, oversized, not JSON) and a corrupt cache', async () => {
    expect(readPrice({ bittensor: { usd: 1.5 } }, 'usd')).toEqual({ ok: true, perTao: 1.5 });
    for (const bad of [
      null,
      [],
      'x',
      {},
      { bittensor: [] },
      { bittensor: { usd: '412' } },
      { bittensor: { usd: -1 } },
      { bittensor: { usd: 0 } },
      { bittensor: { eur: 3 } },
      JSON.parse('{"__proto__": {"usd": 5}}'),
      JSON.parse('{"bittensor": {"__proto__": {"usd": 5}}}'),
    ]) {
      expect(readPrice(bad, 'usd').ok, JSON.stringify(bad)).toBe(false);
    }
    const t = manualClock();
    const cacheFile = join(dir, 'c.json');
    writeFileSync(cacheFile, '{"currency":"usd","perTao":"lots","source":"x","at":1}');
    for (const mode of ['garbage', 'huge', 'wrong-shape'] as const) {
      double.mode = mode;
      const svc = new TauPriceService({ config: () => ({ priceUrl: double.url, currency: 'usd' }), cacheFile, log: silentLogger, clock: t.clock });
      const s = await svc.refresh();
      expect(s.perTao, mode).toBeNull();
      expect(s.error, mode).toMatch(/^The τ price could not be read from /);
    }
    double.mode = 'ok';
  });
});
