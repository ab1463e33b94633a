// TEST DOUBLE: a τ price source speaking CoinGecko's simple-price shape (GET /api/v3/simple/price?ids=bittensor&vs_currencies=usd
// -> {"bittensor": {"usd": 412.5}}), on loopback, with failure modes; fixed quotes, or moving ones on a clock (the simulated
// network's market). Used by tests and the simulated network; never by shipped code.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type PriceMode = 'ok' | 'down' | 'garbage' | 'huge' | 'wrong-shape';

export interface PriceDouble {
  url: string;
  mode: PriceMode;
  prices: Record<string, number>;
  requests: number;
  close(): Promise<void>;
}

export interface PriceMotion {
  /** The double's time (a test's clock; the wall clock on the simulated network). */
  now: () => number;
  /** How far the quote has moved from `prices` at `now()`: a factor (1: not at all). */
  factor: (now: number) => number;
}

/**
 * The simulated network's market: τ moves ±4 % over a 6 h cycle, plus a faster ±1 % ripple over 40 min,
 * from the moment the network starts, so each 10 min read (PRICE_REFRESH_MS) finds a different quote,
 * as the real source would. Deterministic: the same time gives the same price.
 */
export function simulatedMarket(startedAt: number, now: () => number = Date.now): PriceMotion {
  return {
    now,
    factor: (t) => {
      const h = (t - startedAt) / 3_600_000;
      return 1 + 0.04 * Math.sin((2 * Math.PI * h) / 6) + 0.01 * Math.sin((2 * Math.PI * h) / (2 / 3));
    },
  };
}

/** A quote as CoinGecko gives one: cents for prices above 1, six significant digits below. */
const quoted = (x: number) => (x >= 1 ? Math.round(x * 100) / 100 : Number(x.toPrecision(6)));

export async function startPriceDouble(prices: Record<string, number>, motion?: PriceMotion): Promise<PriceDouble> {
  const d: PriceDouble = { url: '', mode: 'ok', prices: { ...prices }, requests: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    d.requests++;
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname !== '/api/v3/simple/price') return void res.writeHead(404).end();
    if (d.mode === 'down') return void res.writeHead(503).end('busy');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (d.mode === 'garbage') return void res.end('{"bittensor": ');
    if (d.mode === 'huge') return void res.end(`{"bittensor": {"usd": 1}, "pad": "${'x'.repeat(64 * 1024)}"}`);
    if (d.mode === 'wrong-shape') return void res.end('{"bittensor": {"usd": "412.5"}}');
    const wanted = (u.searchParams.get('vs_currencies') ?? '').split(',');
    const quote: Record<string, number> = {};
    const factor = motion ? motion.factor(motion.now()) : 1;
    for (const c of wanted) if (Object.hasOwn(d.prices, c)) quote[c] = motion ? quoted(d.prices[c]! * factor) : d.prices[c]!;
    res.end(JSON.stringify(u.searchParams.get('ids') === 'bittensor' ? { bittensor: quote } : {}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  d.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  d.close = () => new Promise<void>((r) => server.close(() => r()));
  return d;
}
