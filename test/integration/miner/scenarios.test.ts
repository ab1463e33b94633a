import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayDouble } from '../../doubles/gateway/gateway-double.ts';
import { abortedAtServe, serveMetric, startFakeServe, startGateway, startMiner, until, waitFor, withReadyMiner, withServe, type FakeServe } from './harness.ts';

const ask = (text: string, max = 32) => ({ messages: [{ role: 'user', content: text }], max_tokens: max });

describe('miner against the gateway double and a fake serve', () => {
  let serve: FakeServe;
  beforeAll(async () => {
    serve = await startFakeServe(['--tokens-per-s', '20']);
  });
  afterAll(async () => {
    await serve.stop();
  });

  async function withMiner(gw: GatewayDouble, over: Parameters<typeof startMiner>[2], body: (m: ReturnType<typeof startMiner>) => Promise<void>): Promise<void> {
    await gw.start();
    const m = startMiner(gw.url, [serve.url], over);
    try {
      await m.start();
      await body(m);
    } finally {
      await m.stop();
      await gw.stop();
    }
  }

  it('a cancel aborts the serve request and sends nothing for that corr_id', async () => {
    // A slow serve of its own, so the answer is still being generated when the cancel lands.
    await withServe(startFakeServe(['--tokens-per-s', '5']), (slow) =>
      withReadyMiner([slow.url], async (gw, m) => {
        const before = await abortedAtServe(slow.url);
        const { corrId, done } = gw.serve(ask('Please explain the result step by step, then give the final answer.', 2000), { stream: false, leg: 2 });
        for (let i = 0; i < 200 && (await serveMetric(slow.url, 'num_running_reqs')) < 1; i++) await new Promise((r) => setTimeout(r, 25));
        expect(await serveMetric(slow.url, 'num_running_reqs')).toBe(1);
        gw.cancel(corrId);
        expect((await done).cancelled).toBe(true);
        await until(() => m.snapshot().recent.some((r) => r.corrId === corrId), 10_000, 'the cancelled record');
        expect(m.snapshot().recent.find((r) => r.corrId === corrId)?.outcome).toBe('cancelled');
        await until(() => m.snapshot().stats.inflight === 0, 5000, 'the job to end');
        for (let i = 0; i < 200 && (await abortedAtServe(slow.url)) === before; i++) await new Promise((r) => setTimeout(r, 25));
        expect(await abortedAtServe(slow.url)).toBe(before + 1);
        expect(await serveMetric(slow.url, 'num_running_reqs')).toBe(0);
        // A late chunk or response for that corr_id would be recorded here.
        expect(gw.framesAfterCancel).toEqual([]);
      }),
    );
  });

  it('a reconnect dials a fresh leg at once and drains the old socket without losing the request', async () => {
    const gw = startGateway({ probe: false });
    await withMiner(gw, {}, async (m) => {
      await waitFor(m, (s) => s.phase === 'waiting-for-probe');
      const { done } = gw.serve(ask('Tell me about the river and the morning.', 200), { stream: true, leg: 3 });
      for (let i = 0; i < 200 && (await serveMetric(serve.url, 'num_running_reqs')) < 1; i++) await new Promise((r) => setTimeout(r, 25));
      expect(await serveMetric(serve.url, 'num_running_reqs')).toBe(1);
      gw.reconnect(3);
      await until(() => gw.socketsOn(3) === 2, 10_000, 'the fresh leg next to the draining one');
      const r = await done;
      expect(r.response?.commitment).not.toBeNull();
      expect(r.audit?.verdict).toBe('pass');
      await until(() => gw.socketsOn(3) === 1, 10_000, 'the drained socket to close');
      const snap = await waitFor(m, (s) => s.legsLive === 8 && s.legs[3]!.draining === 0);
      expect(snap.workerId).toBe(gw.worker()!.workerId);
      expect(gw.view()).toHaveLength(1);
    });
  });

  it('a deny reason reaches the state', async () => {
    const gw = startGateway({ probe: false, keys: ['some-other-key'] });
    await withMiner(gw, {}, async (m) => {
      const s = await waitFor(m, (x) => x.phase === 'denied');
      expect(s.detail).toBe('denied: unknown miner key');
      expect(s.legs.some((l) => l.denyReason === 'unknown miner key')).toBe(true);
    });
  });

  it("fewer than 8 legs is reported, and the gateway refuses the worker with the operators' reason", async () => {
    const gw = startGateway({ probe: false });
    await withMiner(gw, { maxInflight: 5 }, async (m) => {
      const s = await waitFor(m, (x) => x.phase === 'denied');
      expect(s.legsPlanned).toBe(5);
      expect(s.legsWarning).toMatch(/only 5 of the 8 legs/);
      expect(s.detail).toBe('denied: offered 5 distinct clean legs, below the required 8');
    });
  });

  it('64 concurrent streaming requests complete with proofs that pass the audit', { timeout: 90_000 }, async () => {
    const gw = startGateway({ probe: false });
    await withMiner(gw, { maxInflight: 64 }, async (m) => {
      await waitFor(m, (s) => s.phase === 'waiting-for-probe');
      const runs = Array.from({ length: 64 }, (_, i) => gw.serve(ask(`Request ${i}: what is the capital of France?`, 16), { stream: true, leg: i % 8 }).done);
      const results = await Promise.all(runs);
      expect(results.filter((r) => r.response?.commitment && r.audit?.verdict === 'pass')).toHaveLength(64);
      for (const r of results) {
        const streamed = r.chunks.map((c) => c.delta.content ?? '').join('');
        expect(streamed).toBe(r.response!.output.choices![0]!.message.content ?? '');
      }
      expect(m.snapshot().stats.inflightPeak).toBeGreaterThan(8);
    });
  });
});

describe('a worker whose serve runs a cheaper quantisation', () => {
  it('fails its proofs and is refused', { timeout: 60_000 }, async () => {
    const serve = await startFakeServe(['--quantize', 'int4']);
    const gw = startGateway({ probe: { waves: 1, promptWords: 20, maxTokens: 96 } });
    await gw.start();
    // The miner only infers "active" from traffic past a probe window: keep it long here.
    const m = startMiner(gw.url, [serve.url], { probeMinRequests: 1000 });
    try {
      await m.start();
      const s = await waitFor(m, (x) => x.phase === 'denied', 40_000);
      expect(s.history.map((t) => t.phase)).toContain('probing');
      expect(s.detail).toMatch(/^denied: TOPLOC proof failure: \d+ of 24 probe proofs failed the audit/);
      expect(gw.worker()?.audits.some((a) => a.verdict === 'cheat')).toBe(true);
    } finally {
      await m.stop();
      await gw.stop();
      await serve.stop();
    }
  });
});
