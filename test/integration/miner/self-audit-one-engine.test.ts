// The self-audit on a one-engine rig (the typical 2x4090 at tp2): the only serve's prefix cache holds
// every request, so the audit waits until the serve is idle, flushes it with sglang's POST
// /flush_cache (the fake sglang refuses with 400 while a request runs, as sglang does) and re-runs.
// With the hidden-state trim armed, engy_trim spares the audit's own request (rid engy-audit-...).
import { describe, expect, it } from 'vitest';
import { startFakeServeWith, type startGateway, type startMiner, waitFor, withReadyMiner, withServe } from './harness.ts';

const ask = (text: string, max: number) => ({ messages: [{ role: 'user', content: text }], max_tokens: max });

/** One fake serve (trimmed or not), the gateway double without probes, and a miner auditing every request. */
function oneEngine(trim: boolean, run: (rig: { gw: ReturnType<typeof startGateway>; m: ReturnType<typeof startMiner> }) => Promise<void>): Promise<void> {
  return withServe(startFakeServeWith([], { trim }), (serve) => withReadyMiner([serve.url], (gw, m) => run({ gw, m }), { miner: { audit: { sampleRate: 1, minIntervalMs: 0 } } }));
}

describe('self-audit with a single engine', () => {
  it('flushes the idle serve and audits, zero mismatch on honest numerics', { timeout: 90_000 }, async () => {
    await oneEngine(false, async ({ gw, m }) => {
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
    });
  });

  it('audits through the hidden-state trim too: the audit request is spared, every row comes back', { timeout: 90_000 }, async () => {
    await oneEngine(true, async ({ gw, m }) => {
      await gw.serve(ask('Trimmed serve audit: name four planets and one fact each.', 96), { stream: false, leg: 0 }).done;
      const s = await waitFor(m, (x) => x.audit.audited >= 1 && !x.audit.waiting);
      expect(s.audit).toMatchObject({ mode: 'flush-when-idle', failures: 0, skipped: 0, maxScore: 0 });
    });
  });
});
