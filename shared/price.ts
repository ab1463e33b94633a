// The τ price as the UI sees it: from a public source (named, with when it was read), cached, or "no price".
import type { Currency } from './settings.ts';

export interface TauPriceSnapshot {
  currency: Currency;
  /** Price of 1 τ in `currency`; null: no price (never a made-up one). */
  perTao: number | null;
  /** The source's host ("api.coingecko.com"), shown beside every converted figure. */
  source: string;
  /** When the shown price was read from the source (a cached price keeps its own time). */
  at: number | null;
  /** Why the last read failed (the shown price is then the cached one, if any). */
  error: string | null;
  /** When the engine asks again. */
  nextAt: number | null;
}
