// Net profit per day in the user's currency: one computation (shared/profit.ts) on Mine and Earnings, every
// figure with its unit and window, the τ price with its source and time, and what is missing when it is.
import { measuredPowerW, profitPerDay } from '../../../../shared/profit.ts';
import { useSnapshot } from '../../stores/engine-store.ts';
import { ago, tau } from '../common/format.ts';
import { useNow } from '../common/use-now.ts';
import { money } from './figures.ts';

export function ProfitCard() {
  const earnings = useSnapshot('earnings');
  const price = useSnapshot('price');
  const serve = useSnapshot('serve');
  const settings = useSnapshot('settings');
  const now = useNow(1000);
  const p = profitPerDay({
    taoPerDay: earnings?.estimatePerDay.tao ?? null,
    basis: earnings?.estimatePerDay.basis ?? 'earnings not read yet',
    price: price ?? null,
    powerW: measuredPowerW(serve?.gpus),
    kwhPrice: settings?.profit.kwhPrice ?? null,
  });
  const cur = p.currency;
  const cells = [
    { id: 'tao', k: 'Earned, estimate per day', v: tau(p.taoPerDay), sub: p.basis },
    {
      id: 'income',
      k: `In ${cur}, per day`,
      v: money(p.incomePerDay, cur),
      sub: price?.perTao ? `1 τ = ${money(price.perTao, cur)} · ${price.source}, read ${price.at ? ago(price.at, now) : '—'}` : `no price${price?.source ? ` from ${price.source}` : ''}`,
    },
    {
      id: 'power',
      k: 'Electricity, per day',
      v: money(p.powerCostPerDay, cur),
      sub:
        p.kwhPerDay === null ? 'GPU power not measured' : `${p.kwhPerDay.toFixed(1)} kWh at the GPUs' draw now${settings?.profit.kwhPrice != null ? ` × ${settings.profit.kwhPrice} ${cur}/kWh` : ''}`,
    },
    { id: 'net', k: 'Net, per day', v: money(p.netPerDay, cur), sub: 'estimate: income minus GPU electricity' },
  ];
  return (
    <section className="card stack" aria-label="Profit per day" data-testid="profit">
      <h2>Profit per day (estimate)</h2>
      <div className="grid cols-4">
        {cells.map((c) => (
          <div key={c.id} className="stat" data-figure={`profit-${c.id}`}>
            <div className="muted small">{c.k}</div>
            <div className={`stat-value${c.id === 'net' && p.netPerDay !== null && p.netPerDay < 0 ? ' bad-text' : ''}`}>{c.v}</div>
            <div className="muted small">{c.sub}</div>
          </div>
        ))}
      </div>
      {p.missing.length > 0 && (
        <ul className="small muted" style={{ margin: 0 }} data-testid="profit-missing">
          {p.missing.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
