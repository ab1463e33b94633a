// Issue 17 items 2 and 4 over real sockets: heartbeats and ping replies carry the load of the
// whole worker on every leg; a serve-side abort still answers with the text so far;
// ENGY_GW_WORKERS replaces the gateway's /meta count.
import { describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../../electron/engine/lib/logger.ts';
import { startFakeServe, startGateway, startMiner, until, waitFor, withReadyMiner, withServe } from './harness.ts';

type Obj = Record<string, unknown>;
const ask = (max: number) => ({ messages: [{ role: 'user', content: 'Write a long summary of the river trip, with every detail you remember.' }], max_tokens: max });

describe('worker-wide load and serve edges', () => {
  it('reports the same worker-wide inflight and idle seconds on every leg, busy and idle', { timeout: 60_000 }, async () => {
    const serve = await startFakeServe(['--tokens-per-s', '25']);
    const gw = startGateway({ probe: false, recordFrames: true });
    await gw.start();
    const m = startMiner(gw.url, [serve.url]);
    const legs = [0, 1, 2, 3, 4, 5, 6, 7];
    const pingAll = async (): Promise<Obj[]> => {
      const before = legs.map((l) => gw.heartbeats(l));
      const from = gw.frames.length;
      for (const l of legs) gw.ping(l);
      await until(() => legs.every((l, i) => gw.heartbeats(l) > before[i]!), 10_000, 'a heartbeat on every leg');
      return gw.frames.slice(from).filter((f) => (f as Obj).type === 'heartbeat') as Obj[];
    };
    try {
      await m.start();
      await waitFor(m, (s) => s.phase === 'waiting-for-probe');
      const job = gw.serve(ask(200), { stream: true, leg: 3 });
      await until(() => m.snapshot().legs.some((l) => l.inflight === 1), 10_000, 'the request in flight');
      const busy = await pingAll();
      expect(busy.length).toBeGreaterThanOrEqual(8);
      // Seven of these legs carry nothing themselves: a per-leg count would say 0 there.
      for (const hb of busy) expect({ inflight: hb.inflight, idle: hb.idle_seconds }).toEqual({ inflight: 1, idle: 0 });
      gw.cancel(job.corrId);
      await until(() => m.snapshot().legs.every((l) => l.inflight === 0), 10_000, 'the cancel to settle');
      await new Promise((r) => setTimeout(r, 300));
      const idle = await pingAll();
      for (const hb of idle) {
        expect(hb.inflight).toBe(0);
        expect(hb.idle_seconds as number).toBeGreaterThan(0);
        expect(hb.idle_seconds as number).toBeLessThan(30);
      }
      const spread = idle.map((h) => h.idle_seconds as number);
      expect(Math.max(...spread) - Math.min(...spread)).toBeLessThanOrEqual(1);
    } finally {
      await m.stop();
      await gw.stop();
      await serve.stop();
    }
  });

  it('answers a serve the serve itself aborted with the text generated so far, proven', { timeout: 60_000 }, async () => {
    await withServe(startFakeServe(['--tokens-per-s', '40']), (serve) =>
      withReadyMiner([serve.url], async (gw, m) => {
        for (const stream of [true, false]) {
          const job = gw.serve(ask(400), { stream, leg: 1 });
          await until(() => m.snapshot().legs.some((l) => l.inflight === 1), 10_000, 'the request in flight');
          await new Promise((r) => setTimeout(r, 400));
          // Not a cancel from the gateway: the serve drops the request on its own (e.g. retraction).
          const res = await fetch(`${serve.url}/abort_request`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ abort_all: true }) });
          expect(res.ok).toBe(true);
          const r = await job.done;
          expect(r.response?.error).toBeUndefined();
          const c = r.response!.commitment!;
          expect(c.output_token_ids.length).toBeGreaterThan(0);
          expect(c.output_token_ids.length).toBeLessThan(400);
          expect(r.audit?.verdict).toBe('pass');
          const msg = r.response!.output.choices![0]!.message;
          expect(`${msg.reasoning_content ?? ''}${msg.content ?? ''}`.length).toBeGreaterThan(0);
          expect(r.response!.output.choices![0]!.finish_reason).toBe('stop');
        }
      }),
    );
  });

  it('dials the worker count ENGY_GW_WORKERS gives instead of /meta, and warns on a bad one', { timeout: 60_000 }, async () => {
    const serve = await startFakeServe();
    const gw = startGateway({ probe: false });
    await gw.start();
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (t: string) => void warnings.push(t) };
    for (const [value, workers] of [
      ['3', 3],
      ['nonsense', 8],
      ['__proto__', 8],
    ] as const) {
      warnings.length = 0;
      const m = startMiner(gw.url, [serve.url], { env: { ENGY_GW_WORKERS: value }, log });
      try {
        await m.start();
        const s = await waitFor(m, (x) => x.legsLive === x.legsPlanned && x.legsPlanned > 0);
        expect(s.gatewayWorkers).toBe(workers);
        expect(s.legs.map((l) => l.url)).toEqual(Array.from({ length: workers }, (_, i) => `${gw.url}/${i}`));
        if (workers === 8) expect(warnings.some((w) => w.includes('ENGY_GW_WORKERS'))).toBe(true);
      } finally {
        await m.stop();
      }
    }
    await gw.stop();
    await serve.stop();
  });
});
