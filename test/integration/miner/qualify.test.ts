import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProofPort } from '../../../electron/engine/miner/proof-adapter.ts';
import { ProofPool } from '../../../electron/engine/proof/proof-pool.ts';
import type { GatewayDouble } from '../../doubles/gateway/gateway-double.ts';
import { startFakeServe, startGateway, startMiner, until, waitFor, type FakeServe } from './harness.ts';

describe('an honest worker', () => {
  let serve: FakeServe;
  let gw: GatewayDouble;
  beforeAll(async () => {
    serve = await startFakeServe();
    gw = startGateway({ probe: { waves: 1, promptWords: 30, maxTokens: 24 } });
    await gw.start();
  });
  afterAll(async () => {
    await gw.stop();
    await serve.stop();
  });

  it('opens 8 legs, passes the probe wave with proofs that verify, and serves', { timeout: 60_000 }, async () => {
    // Parsing and proving in the proof engine's worker threads, as the app runs it.
    const pool = new ProofPool({ size: 1 });
    const miner = startMiner(gw.url, [serve.url], { proof: createProofPort(pool) });
    try {
      await miner.start();
      await waitFor(miner, (s) => s.legsLive === 8);
      await until(() => gw.worker()?.state === 'active' || gw.worker()?.state === 'refused', 30_000, 'the probe verdict');
      const w = gw.worker()!;
      expect(w.reason).toBeNull();
      expect(w.state).toBe('active');
      expect(w.probeResults).toEqual({ ok: 24, failed: 0 });
      expect(w.audits.every((a) => a.verdict === 'pass' && a.score === 0)).toBe(true);
      const snap = await waitFor(miner, (s) => s.phase === 'active');
      expect(snap.stats.ok).toBe(24);
      expect(snap.workerId).toBe(w.workerId);
    } finally {
      await miner.stop();
      await pool.dispose();
    }
  });
});
