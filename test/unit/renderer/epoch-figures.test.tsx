// One number, one meaning per epoch: the Earnings row, its details and History's verdict read the billed
// tokens and requests from one reader (earnings/figures.ts); the tokens served here are a different,
// differently labelled count; the details keep human words for the provider's fields (hostile names too);
// money per epoch is the per-day arithmetic over the epoch's window; the running epoch says so.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { epochEarnings } from '../../helpers/epoch-earnings.ts';
import type { TauPriceSnapshot } from '../../../shared/price.ts';
import { profitPerDay } from '../../../shared/profit.ts';
import { epochFigures, epochMoney, fieldLabel, money, providerCounts } from '../../../renderer/src/features/earnings/figures.ts';
import { RowDetail } from '../../../renderer/src/features/earnings/row-detail.tsx';
import { verdictHeadline, verdictSentences } from '../../../renderer/src/features/history/verdict.ts';

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ');
const price: TauPriceSnapshot = { currency: 'usd', perTao: 400, source: 'api.coingecko.com', at: 1, error: null, nextAt: null };

const epoch = epochEarnings;

describe('epoch figures', () => {
  it('billed tokens and requests read the same in the row figures, the details and the History verdict; served tokens are labelled apart', () => {
    const e = epoch();
    const f = epochFigures(e);
    expect(f.billedTokens).toBe('146');
    expect(f.servedTokens).toBe('2,643');
    expect(f.billedRequests).toBe('9 ok · 1 failed');
    const html = renderToStaticMarkup(<RowDetail e={e} basis={{ m: epochMoney(e, price, 1200, 0.3), perTao: 400, powerW: 1200, kwhPrice: 0.3 }} />);
    expect(html).toContain('data-figure="billed-tokens">146<');
    expect(html).toContain('data-figure="billed-requests">9 ok · 1 failed<');
    expect(text(html)).toContain("Served here (this rig's records) 2,643 tokens in 31 requests, probes and unbilled traffic included");
    const verdict = verdictSentences(e).join(' ');
    expect(verdict).toContain('9 billed requests answered ok and 1 failed, 146 billed tokens in all');
    expect(verdictHeadline(e)).toBe('gates passed · 50.00 % of the miner emission');
  });

  it('the details show human labels, never raw field names, and keep an unknown field under its own words', () => {
    const e = epoch({ gate: { passed: false, reason: 'ttft' }, row: { hotkey: '5Rig', tokens: 10, gate_reason: 'ttft', latency_p99_ms: 812, __proto__: 3, constructor: 'x' } });
    const t = text(renderToStaticMarkup(<RowDetail e={e} basis={{ m: epochMoney(e, null, null, null), perTao: null, powerW: null, kwhPrice: null }} />));
    expect(t).not.toMatch(/gate_reason|requests_ok|latency_p99_ms/);
    expect(t).toContain('Gate failed on TTFT p99 above the model gate');
    expect(t).toContain('Latency p99 ms 812');
    expect(t).toContain('Constructor x');
    expect(fieldLabel('__proto__')).toBe('Proto');
    expect(fieldLabel('requestsOk')).toBe('Requests ok');
    expect(fieldLabel('')).toBe('');
    expect(fieldLabel('gate_reason')).toBe('Gate failed on');
  });

  it('reads counts only from finite numbers (a string, NaN or an object in a count field is not a count)', () => {
    const c = providerCounts({ tokens: '146', requests_ok: Number.NaN, requests_failed: { n: 1 }, score: 5 });
    expect([c.tokens, c.ok, c.failed, c.score]).toEqual([null, null, null, 5]);
    expect(epochFigures(epoch({ row: null, tokens: null }))).toMatchObject({ billedTokens: '—', billedRequests: '—', servedTokens: '—' });
  });

  it('money per epoch is the per-day arithmetic over the epoch window: income, power cost, net', () => {
    const m = epochMoney(epoch(), price, 1200, 0.3);
    expect(m.currency).toBe('USD');
    expect(m.income).toBeCloseTo(4, 9);
    expect(m.kwh).toBeCloseTo(1.2, 9);
    expect(m.powerCost).toBeCloseTo(0.36, 9);
    expect(m.net).toBeCloseTo(3.64, 9);
    // 24 one-hour epochs earning a day's τ cost what the day costs.
    const day = profitPerDay({ taoPerDay: 0.24, basis: 'b', price, powerW: 1200, kwhPrice: 0.3 });
    expect(m.powerCost! * 24).toBeCloseTo(day.powerCostPerDay!, 9);
    expect(m.income! * 24).toBeCloseTo(day.incomePerDay!, 9);
    // Missing inputs stay missing, never zero.
    expect(epochMoney(epoch({ startMs: null }), price, 1200, 0.3)).toMatchObject({ kwh: null, powerCost: null, net: null });
    expect(epochMoney(epoch({ projectedTao: null }), price, 1200, 0.3)).toMatchObject({ income: null, net: null });
    expect(money(-0.0042, 'USD')).toBe('−0.00420 USD');
    expect(money(3.64, 'EUR')).toBe('3.64 EUR');
    expect(money(null, 'EUR')).toBe('—');
  });

  it('the running epoch says running in its details, with what it earned so far', () => {
    const e = epoch({ realisedRunning: true, realisedNote: '1 chain read covering 20 s of the 28 s these weights applied (still running)' });
    const t = text(renderToStaticMarkup(<RowDetail e={e} basis={{ m: epochMoney(e, price, null, null), perTao: 400, powerW: null, kwhPrice: null }} />));
    expect(t).toContain('Realised τ running, so far 0.004000 τ');
  });
});
