// The one-engine self-audit's bookkeeping: a busy serve defers the audit until idle, a refused
// /flush_cache is a counted skip with its reason, never a failure and never a fake score.
import { describe, expect, it } from 'vitest';
import { Agent } from 'node:http';
import { SelfAuditor } from '../../../electron/engine/miner/self-audit.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import type { ProofPort } from '../../../electron/engine/miner/proof-port.ts';
import type { AuditSample } from '../../../electron/engine/miner/request-pipeline.ts';

const sample = (id: string): AuditSample =>
  ({
    requestId: id,
    serveUrl: 'http://127.0.0.1:9',
    commitment: { output_token_ids: [5, 6, 7], toploc: { prompt_ids: [1, 2, 3], n_tokens: 3, proofs: ['x'], decode_batching_size: 32, topk: 128 } },
  }) as unknown as AuditSample;

describe('self-audit on one engine', () => {
  it('waits for idle, then a refused flush is a skip with its reason', async () => {
    let idle = false;
    const flushes: string[] = [];
    const results: Array<[string, number | null, string | null]> = [];
    let changed = 0;
    const a = new SelfAuditor({
      proof: {} as ProofPort,
      agent: new Agent(),
      log: silentLogger,
      sampleRate: 1,
      minIntervalMs: 0,
      maxRows: 1000,
      serveUrls: ['http://127.0.0.1:9'],
      threshold: 0.3125,
      idle: () => idle,
      flush: async (u) => (flushes.push(u), false),
      onResult: (rid, score, _c, err) => results.push([rid, score, err]),
      onChange: () => changed++,
    });
    a.offer(sample('r1'));
    expect(a.summary()).toMatchObject({ waiting: true, mode: 'flush-when-idle', skipped: 0 });
    a.offer(sample('r2')); // replaces r1, which is counted as skipped
    expect(a.summary().skipReasons).toEqual([{ reason: 'the serve never went idle before a newer sample replaced it', count: 1 }]);
    a.poke(); // still busy: nothing runs
    expect(flushes).toEqual([]);
    idle = true;
    a.poke();
    await new Promise((r) => setTimeout(r, 20));
    expect(flushes).toEqual(['http://127.0.0.1:9']);
    expect(results).toEqual([['r2', null, expect.stringMatching(/sglang refused \/flush_cache/)]]);
    const s = a.summary();
    expect(s).toMatchObject({ audited: 0, failures: 0, skipped: 2, waiting: false, flushes: 0, lastScore: null, threshold: 0.3125 });
    expect(changed).toBeGreaterThan(0);
  });

  it('too large to re-run is a counted skip, and a second engine needs no flush', () => {
    const a = new SelfAuditor({ proof: {} as ProofPort, agent: new Agent(), log: silentLogger, sampleRate: 1, minIntervalMs: 0, maxRows: 2, serveUrls: ['http://a', 'http://b'] });
    a.offer(sample('big'));
    expect(a.summary()).toMatchObject({ skipped: 1, mode: 'other-engine', skipReasons: [{ reason: 'too large to re-run on this thread', count: 1 }] });
  });
});
