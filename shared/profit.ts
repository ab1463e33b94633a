// Money in the user's terms, one computation for every page: τ per day (the projected estimate and its basis),
// in the chosen currency at the read τ price, the electricity the GPUs draw (measured power x 24 h x the kWh
// price), and the net. Each figure is null with the reason when an input is missing: never a guessed value.
import type { TauPriceSnapshot } from './price.ts';
import type { GpuSeries } from './serve.ts';

export interface ProfitInputs {
  taoPerDay: number | null;
  /** What the τ estimate rests on ("projected, from the last 5 epochs (#3 to #7, 2 h of serving)"). */
  basis: string;
  price: TauPriceSnapshot | null;
  /** The GPUs' measured draw now, in W (null: not measured). */
  powerW: number | null;
  /** Per kWh, in the price's currency (null: not set in Settings). */
  kwhPrice: number | null;
}

export interface ProfitView {
  currency: string;
  taoPerDay: number | null;
  basis: string;
  incomePerDay: number | null;
  kwhPerDay: number | null;
  powerCostPerDay: number | null;
  netPerDay: number | null;
  /** Why a figure is missing, one sentence each (empty when all are there). */
  missing: string[];
}

/** The sum of each GPU's newest measured power draw, in W; null when no card reports one. */
export function measuredPowerW(gpus: readonly GpuSeries[] | undefined): number | null {
  let sum = 0;
  let seen = 0;
  for (const g of gpus ?? []) {
    const last = g.points[g.points.length - 1];
    if (last && typeof last.powerDrawW === 'number' && Number.isFinite(last.powerDrawW) && last.powerDrawW >= 0) {
      sum += last.powerDrawW;
      seen++;
    }
  }
  return seen === 0 ? null : sum;
}

/** One span's money (an epoch's window): the same arithmetic as per day, over the span's duration. */
export interface SpanProfit {
  currency: string;
  income: number | null;
  kwh: number | null;
  powerCost: number | null;
  net: number | null;
}

/** Money over `durationMs` of serving that earned `tao`: in currency, the GPUs' electricity over the span, net. */
export function profitOverSpan(i: { tao: number | null; durationMs: number | null; price: TauPriceSnapshot | null; powerW: number | null; kwhPrice: number | null }): SpanProfit {
  const currency = (i.price?.currency ?? 'usd').toUpperCase();
  const perTao = i.price?.perTao ?? null;
  const income = i.tao !== null && perTao !== null ? i.tao * perTao : null;
  const kwh = i.powerW !== null && i.durationMs !== null && i.durationMs >= 0 ? (i.powerW * i.durationMs) / 3_600_000_000 : null;
  const powerCost = kwh !== null && i.kwhPrice !== null ? kwh * i.kwhPrice : null;
  const net = income !== null && powerCost !== null ? income - powerCost : null;
  return { currency, income, kwh, powerCost, net };
}

export function profitPerDay(i: ProfitInputs): ProfitView {
  const currency = (i.price?.currency ?? 'usd').toUpperCase();
  const missing: string[] = [];
  if (i.taoPerDay === null) missing.push(`No τ estimate yet: ${i.basis}.`);
  const perTao = i.price?.perTao ?? null;
  if (perTao === null) missing.push(`No τ price${i.price?.error ? ` (${i.price.error.replace(/\.$/, '')})` : ''}: figures stay in τ.`);
  const kwhPerDay = i.powerW === null ? null : (i.powerW * 24) / 1000;
  if (kwhPerDay === null) missing.push('No GPU power measured (nvidia-smi power.draw): the electricity cost is unknown.');
  if (i.kwhPrice === null) missing.push('No electricity price: set your price per kWh in Settings > Profit.');
  const day = profitOverSpan({ tao: i.taoPerDay, durationMs: 86_400_000, price: i.price, powerW: i.powerW, kwhPrice: i.kwhPrice });
  return { currency, taoPerDay: i.taoPerDay, basis: i.basis, incomePerDay: day.income, kwhPerDay, powerCostPerDay: day.powerCost, netPerDay: day.net, missing };
}
