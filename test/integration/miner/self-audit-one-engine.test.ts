// The self-audit on a one-engine rig (the typical 2x4090 at tp2): the only serve's prefix cache holds
// every request, so the audit waits until the serve is idle, flushes it with sglang's POST
// /flush_cache (the fake sglang refuses with 400 while a request runs, as sglang does) and re-runs.
import { describe, expect, it } from 'vitest';
import { startFakeServeWith, startGateway, startMiner, waitFor } from './harness.ts';

const ask = (text: string, max: number) => ({ messages: [{ role: 'user', content: text }], max_tokens: max });

describe('self-audit with a single engine', () => {
  it('flushes the idle serve and audits, zero mismatch on honest numerics', { timeout: 90_000 }, async () => {
    const serve = await startFakeServeWith([], { trim: false });
    const gw = startGateway({ probe: false });
    await gw.start();
    const m = startMiner(gw.url, [serve.url], { audit: { sampleRate: 1, minIntervalMs: 0 } });
    try {
      await m.start();
      await waitFor(m, (s) => s.phase === 'waiting-for-probe');
      // Two requests at once: the first one's audit cannot flush while the second runs; it waits.
      const a = gw.serve(ask('One engine audit, first: explain the result step by step.', 96), { stream: false, leg: 0 });
      const b = gw.serve(ask('One engine audit, second: list three facts about rivers.', 96), { stream: false, leg: 1 });
      await Promise.all([a.done, b.done]);
      const s = await waitFor(m, (x) => x.audit.audited >= 1 && x.stats.inflight === 0 && !x.audit.waiting);
      expect(s.audit.mode).toBe('flush-when-idle');
      expect(s.audit.flushes).toBeGreaterThanOrEqual(1);
      expect(s.audit.failures).toBe(0);
      expect(s.audit.maxScore).toBe(0);
      expect(s.audit.threshold).toBeCloseTo(40 / 128, 9);
    } finally {
      await m.stop();
      await gw.stop();
      await serve.stop();
    }
  });
});
