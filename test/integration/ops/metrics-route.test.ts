import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EngyMetrics } from '../../../electron/engine/metrics/engy-metrics.ts';
import { metricsRoute } from '../../../electron/engine/metrics/metrics-route.ts';
import { parsePrometheusText } from '../../../electron/engine/metrics/prom-parse.ts';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(handler: ReturnType<typeof metricsRoute>): Promise<string> {
  server = createServer((_req, res) => handler(res));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

describe('GET /metrics over a real socket', () => {
  it('answers the exposition format a Prometheus scraper accepts', async () => {
    const m = new EngyMetrics();
    m.observeMiner({ state: 'active', legsConnected: 8, legsAdmitted: 8, inFlight: 1 });
    const res = await fetch(await serve(metricsRoute(() => m.renderMetrics())));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = parsePrometheusText(await res.text());
    expect(families.find((f) => f.name === 'engy_miner_legs_admitted')?.samples[0]?.value).toBe(8);
  });

  it('fails the scrape with 500 rather than a partial body', async () => {
    const res = await fetch(
      await serve(
        metricsRoute(() => {
          throw new Error('registry broken');
        }),
      ),
    );
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('metrics failed: registry broken\n');
  });
});
