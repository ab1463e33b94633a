// Settings > Profit: the currency figures are shown in, the electricity price, and the τ price source.
import { CURRENCIES, type Currency, type Settings } from '../../../../shared/settings.ts';
import { DEFAULT_PRICE_URL } from '../../../../shared/network.ts';
import { TextSetting, saveSetting } from './setting-field.tsx';

export function ProfitSettings({ s }: { s: Settings }) {
  const currency = s.profit.currency.toUpperCase();
  return (
    <section className="card stack" aria-label="Profit">
      <h2>Profit</h2>
      <p className="small muted" style={{ margin: 0 }}>
        Earnings in your currency minus the electricity the GPUs draw (measured by nvidia-smi), on Mine and Earnings.
      </p>
      <label className="toggle">
        Currency
        <select value={s.profit.currency} onChange={(e) => void saveSetting({ profit: { currency: e.target.value as Currency } })} data-testid="profit-currency">
          {CURRENCIES.map((c) => (
            <option key={c} value={c}>
              {c.toUpperCase()}
            </option>
          ))}
        </select>
      </label>
      <TextSetting
        id="kwhPrice"
        path="profit.kwhPrice"
        label={`Electricity price (${currency} per kWh)`}
        hint="from your bill; empty: no electricity cost and no net figure"
        network={s.network}
        saved={s.profit.kwhPrice === null ? '' : String(s.profit.kwhPrice)}
        defaultText=""
        placeholder="0.25"
        parse={(t) => (t.trim() === '' ? null : /^\s*\d+(\.\d+)?\s*$/.test(t) ? Number(t) : t)}
        patch={(value) => ({ profit: { kwhPrice: value as number | null } })}
      />
      <TextSetting
        id="priceUrl"
        path="profit.priceUrl"
        label="τ price source"
        hint="CoinGecko's public API (read every 10 min, cached)"
        network={s.network}
        saved={s.profit.priceUrl}
        defaultText={DEFAULT_PRICE_URL}
        parse={(t) => t}
        patch={(value) => ({ profit: { priceUrl: value as string } })}
      />
    </section>
  );
}
