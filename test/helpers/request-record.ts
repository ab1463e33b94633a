// One served request's record (shared/miner.ts MinerRequestRecord) for tests that store, prune or total
// records: request i on leg i % 8, received at `receivedAt`, answered ok; `over` sets what a test varies.
import type { MinerRequestRecord } from '../../shared/miner.ts';

export function requestRecord(i: number, receivedAt: number, over: Partial<MinerRequestRecord> = {}): MinerRequestRecord {
  return {
    corrId: `c${i}`,
    requestId: `r${i}`,
    leg: i % 8,
    engine: 'engine-0',
    stream: true,
    receivedAt,
    ttftMs: 10,
    tpotMs: 2,
    e2eMs: 50,
    promptTokens: 100,
    completionTokens: 20,
    cachedTokens: 0,
    proofMs: 3,
    outcome: 'ok',
    finishReason: 'stop',
    cause: null,
    ...over,
  };
}
