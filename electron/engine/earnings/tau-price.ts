// The τ price in the user's currency from a public source (CoinGecko's simple-price API by default, the
// simulated network's double in the demo): read every 10 min, sooner never (the source rate-limits), with a
// capped backoff after a failure, and the last good price cached on disk so a restart or an outage still has
// one (shown with its own time, never passed off as fresh). Any answer that is not a finite positive number
// for the asked coin and currency is refused: no price is better than a wrong one.
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { PRICE_COIN_ID, PRICE_PATH } from '../../../shared/network.ts';
import type { TauPriceSnapshot } from '../../../shared/price.ts';
import { CURRENCIES, type Currency } from '../../../shared/settings.ts';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import { Backoff } from '../lib/backoff.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { Emitter } from '../lib/emitter.ts';
import type { FetchFn } from '../lib/fetch.ts';
import type { Logger } from '../lib/logger.ts';
import { fetchJsonCapped } from '../validator/payload-fetch.ts';

export const PRICE_REFRESH_MS = 10 * 60_000;
const MAX_BYTES = 16 * 1024;

const Cached = v.strictObject({
  currency: v.picklist(CURRENCIES),
  perTao: v.pipe(v.number(), v.finite(), v.gtValue(0)),
  source: v.pipe(v.string(), v.maxLength(300)),
  at: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
type CachedPrice = v.InferOutput<typeof Cached>;

export interface TauPriceOptions {
  /** `simulated`: the settings are for the simulated network (the demo), whose price is a double's. */
  config: () => { priceUrl: string; currency: Currency; simulated?: boolean };
  cacheFile: string;
  log: Logger;
  clock?: Clock;
  fetch?: FetchFn;
  /** Tests: no jitter. */
  random?: () => number;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** How the panel names a price source: its host, and on the simulated network, that it is simulated (never mistaken for a market). */
export function priceSourceName(priceUrl: string, simulated = false): string {
  return simulated ? `simulated market at ${hostOf(priceUrl)}` : hostOf(priceUrl);
}

/** The price in an answer shaped `{"bittensor": {"usd": 412.5}}`; null with the reason for anything else. */
export function readPrice(body: unknown, currency: Currency): { ok: true; perTao: number } | { ok: false; why: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, why: 'it answered something that is not a price list' };
  const coin = Object.hasOwn(body, PRICE_COIN_ID) ? (body as Record<string, unknown>)[PRICE_COIN_ID] : undefined;
  if (typeof coin !== 'object' || coin === null || Array.isArray(coin)) return { ok: false, why: `it has no price for ${PRICE_COIN_ID}` };
  const n = Object.hasOwn(coin, currency) ? (coin as Record<string, unknown>)[currency] : undefined;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return { ok: false, why: `it has no usable ${currency.toUpperCase()} price for τ` };
  return { ok: true, perTao: n };
}

export class TauPriceService {
  private readonly o: TauPriceOptions;
  private readonly clock: Clock;
  private readonly backoff: Backoff;
  private cached: CachedPrice | null;
  private error: string | null = null;
  private nextAt: number | null = null;
  private timer: unknown = null;
  private disposed = false;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;

  constructor(o: TauPriceOptions) {
    this.o = o;
    this.clock = o.clock ?? systemClock;
    this.backoff = new Backoff({ initialMs: 30_000, maxMs: PRICE_REFRESH_MS, ...(o.random ? { random: o.random } : {}) });
    this.cached = this.loadCache();
  }

  private loadCache(): CachedPrice | null {
    try {
      const parsed = v.safeParse(Cached, JSON.parse(readFileSync(this.o.cacheFile, 'utf8')));
      return parsed.success ? parsed.output : null;
    } catch {
      return null;
    }
  }

  snapshot(): TauPriceSnapshot {
    const { priceUrl, currency, simulated } = this.o.config();
    const source = priceSourceName(priceUrl, simulated);
    // A cached price in another currency, or from another source, is no price for this one.
    const c = this.cached && this.cached.currency === currency && this.cached.source === source ? this.cached : null;
    return { currency, perTao: c?.perTao ?? null, source, at: c?.at ?? null, error: this.error, nextAt: this.nextAt };
  }

  /** Reads the price now; the snapshot says what came of it. */
  async refresh(): Promise<TauPriceSnapshot> {
    const { priceUrl, currency, simulated } = this.o.config();
    const url = `${priceUrl.replace(/\/$/, '')}${PRICE_PATH}?ids=${PRICE_COIN_ID}&vs_currencies=${currency}`;
    const got = await fetchJsonCapped(url, { maxBytes: MAX_BYTES, timeoutMs: 15_000, ...(this.o.fetch ? { fetch: this.o.fetch } : {}) });
    const source = priceSourceName(priceUrl, simulated);
    const price = got.ok ? readPrice(got.value, currency) : null;
    if (price?.ok) {
      this.cached = { currency, perTao: price.perTao, source, at: this.clock.now() };
      this.error = null;
      this.backoff.reset();
      try {
        writeFileAtomic(this.o.cacheFile, JSON.stringify(this.cached));
      } catch (e) {
        this.o.log.warn(`the τ price could not be cached: ${(e as Error).message}`);
      }
    } else {
      const why = got.ok ? (price as { why: string }).why : (got.error.cause ?? got.error.message.replace(/provider/g, 'price source'));
      const first = this.error === null;
      this.error = `The τ price could not be read from ${source}: ${why}.`;
      if (first) this.o.log.warn(`${this.error} Asking again with backoff; figures in ${currency.toUpperCase()} use the last price read, if any, with its time.`);
    }
    this.changes.fire();
    return this.snapshot();
  }

  /** Reads now, then every 10 min (after a failure: from 30 s, doubling to 10 min). */
  start(): void {
    const loop = async () => {
      if (this.disposed) return;
      await this.refresh().catch((e: unknown) => this.o.log.warn(`τ price refresh failed: ${(e as Error).message}`));
      if (this.disposed) return;
      const delay = this.error === null ? PRICE_REFRESH_MS : this.backoff.next();
      this.nextAt = this.clock.now() + delay;
      this.changes.fire();
      this.timer = this.clock.setTimeout(() => void loop(), delay);
    };
    void loop();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
  }
}
