// Issue 17 item 7: tick outcomes spelled as the reference spells them (`rejected:<reason>`,
// `submit-failed`), so operators' log alerts written for the reference match this validator.
import { describe, expect, it } from 'vitest';
import { harnessPerTest, MINER_A } from './harness.ts';

const harness = harnessPerTest();

describe('outcome labels', () => {
  it('names the reason of a refused payload: rejected:signature, rejected:digest', async () => {
    const h = await harness();
    h.provider.publish(4, [[MINER_A, 1]]);
    h.provider.mode = 'wrong-key';
    expect((await h.svc.runOnce()).tick.outcome).toBe('rejected:signature');
    h.provider.mode = 'tampered';
    expect((await h.svc.runOnce()).tick.outcome).toMatch(/^rejected:(digest|signature)$/);
    expect(h.chain.landed()).toHaveLength(0);
  });

  it('logs the label on the tick line', async () => {
    const h = await harness();
    h.provider.publish(4, [[MINER_A, 1]]);
    h.provider.mode = 'wrong-key';
    await h.svc.runOnce();
    expect(h.logs.some((l) => l.includes('[tick] rejected:signature:'))).toBe(true);
  });
});
