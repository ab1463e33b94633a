// Issue 31 (the miner keeps its word on capacity): a serve frame beyond the declared
// max_inflight_total is refused at once with a structured 503, and a serve that never answers
// is given up on after the declared deadline (the reference's read timeout), freeing the slot.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { withReadyMiner } from './harness.ts';

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
});

/** A serve that is healthy by its probes but never answers a generation. */
async function silentServe(): Promise<string> {
  server = createServer((req, res) => {
    if (req.url === '/generate') return; // hold the request forever
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.url === '/get_load' ? '[]' : '{}');
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('capacity and a serve that never answers', () => {
  it('refuses frames over max_inflight_total with a 503 at once; the held ones time out at the deadline', async () => {
    const url = await silentServe();
    await withReadyMiner(
      [url],
      async (gw, m) => {
        const req = (i: number) => ({ messages: [{ role: 'user', content: `hello ${i}` }], max_tokens: 4, engy_request_id: `cap-${i}` });
        const sent = Array.from({ length: 12 }, (_, i) => gw.serve(req(i), { stream: i % 2 === 0, leg: i % 8 }));
        const t0 = Date.now();
        const results = await Promise.all(sent.map((s) => s.done));
        const refused = results.filter((r) => r.response?.error?.type === 'OverCapacity');
        expect(refused).toHaveLength(4);
        for (const r of refused) expect(r.response!.error).toMatchObject({ status: 503, message: expect.stringMatching(/over capacity: 8 requests in flight, 8 declared/) as unknown });
        const held = results.filter((r) => r.response?.error?.type !== 'OverCapacity');
        expect(held).toHaveLength(8);
        for (const r of held) {
          expect(r.response?.commitment).toBeNull();
          expect(r.response?.error?.message).toMatch(/no answer from the serve within 10 s/);
          expect(r.response?.error?.status).toBeNull();
        }
        // Not before the deadline we declared; the slots are free again afterwards.
        expect(Date.now() - t0).toBeGreaterThanOrEqual(9_900);
        expect(m.snapshot().stats.inflight).toBe(0);
        const again = await gw.serve(req(99), { stream: false, leg: 0 }).done;
        expect(again.response?.error?.type).not.toBe('OverCapacity');
      },
      { miner: { maxInflight: 8, limits: { maxRequestS: 10 } } },
    );
  }, 60_000);
});
