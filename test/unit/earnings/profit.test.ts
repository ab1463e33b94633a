// Net profit per day: τ estimate x τ price - measured GPU power x 24 h x kWh price, each figure missing with its reason.
import { describe, expect, it } from 'vitest';
import { measuredPowerW, profitPerDay } from '../../../shared/profit.ts';
import type { TauPriceSnapshot } from '../../../shared/price.ts';
import type { GpuSeries } from '../../../shared/serve.ts';

const price: TauPriceSnapshot = { currency: 'eur', perTao: 400, source: 'api.coingecko.com', at: 1, error: null, nextAt: null };
const gpu = (index: number, ...watts: Array<number | null>): GpuSeries => ({
  index,
  name: 'RTX 4090',
  points: watts.map((w, i) => ({ at: i, utilizationPct: 90, memoryUsedMiB: 1, memoryTotalMiB: 2, temperatureC: 60, powerDrawW: w })),
});

describe('profit per day', () => {
  it('income, power cost and net in the chosen currency', () => {
    const p = profitPerDay({ taoPerDay: 0.5, basis: 'b', price, powerW: 900, kwhPrice: 0.3 });
    expect(p.currency).toBe('EUR');
    expect(p.incomePerDay).toBeCloseTo(200, 9);
    expect(p.kwhPerDay).toBeCloseTo(21.6, 9);
    expect(p.powerCostPerDay).toBeCloseTo(6.48, 9);
    expect(p.netPerDay).toBeCloseTo(193.52, 9);
    expect(p.missing).toEqual([]);
  });

  it('says what is missing instead of guessing: no price, no power, no kWh price, no estimate', () => {
    const p = profitPerDay({
      taoPerDay: null,
      basis: 'an estimate needs 3 verified epochs; 1 so far',
      price: { ...price, perTao: null, error: 'The τ price could not be read from x: it answered HTTP 503.' },
      powerW: null,
      kwhPrice: null,
    });
    expect([p.incomePerDay, p.kwhPerDay, p.powerCostPerDay, p.netPerDay]).toEqual([null, null, null, null]);
    expect(p.missing).toEqual([
      'No τ estimate yet: an estimate needs 3 verified epochs; 1 so far.',
      'No τ price (The τ price could not be read from x: it answered HTTP 503): figures stay in τ.',
      'No GPU power measured (nvidia-smi power.draw): the electricity cost is unknown.',
      'No electricity price: set your price per kWh in Settings > Profit.',
    ]);
    // Power known but no tariff: kWh shown, no cost, no net.
    const q = profitPerDay({ taoPerDay: 1, basis: 'b', price, powerW: 450, kwhPrice: null });
    expect([q.kwhPerDay, q.powerCostPerDay, q.netPerDay]).toEqual([10.8, null, null]);
  });

  it('sums each card newest measured draw, skipping cards without one', () => {
    expect(measuredPowerW([gpu(0, 100, 300), gpu(1, 250), gpu(2, null)])).toBe(550);
    expect(measuredPowerW([gpu(0, null)])).toBeNull();
    expect(measuredPowerW([gpu(0, Number.NaN, -5)])).toBeNull();
    expect(measuredPowerW(undefined)).toBeNull();
  });
});
