// TEST DOUBLE: a τ price source speaking CoinGecko's simple-price shape (GET /api/v3/simple/price?ids=bittensor&vs_currencies=usd
// -> {"bittensor": {"usd": 412.5}}), on loopback, with failure modes. Used by tests and the simulated network; never by shipped code.
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

export async function startPriceDouble(prices: Record<string, number>): Promise<PriceDouble> {
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
    for (const c of wanted) if (Object.hasOwn(d.prices, c)) quote[c] = d.prices[c]!;
    res.end(JSON.stringify(u.searchParams.get('ids') === 'bittensor' ? { bittensor: quote } : {}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  d.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  d.close = () => new Promise<void>((r) => server.close(() => r()));
  return d;
}
