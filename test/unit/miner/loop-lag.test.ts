// The miner's event-loop probe: p99 over the recent window it names, max and stalls since start.
import { describe, expect, it } from 'vitest';
import { LoopLagProbe } from '../../../electron/engine/miner/loop-lag.ts';

describe('loop-lag probe', () => {
  it('keeps the p99 to its window, counts stalls and the worst lag since start, and names the window', () => {
    let inflight = 3;
    const probe = new LoopLagProbe(() => inflight, 250, 100);
    probe.record(1_500); // a stall, worst so far, with 3 in flight
    inflight = 9;
    for (let i = 0; i < 100; i++) probe.record(i % 10 === 0 ? 40 : 2);
    // The stall has left the 100-sample window: p99 is the window's, max and stalls are since start.
    expect(probe.health()).toEqual({ lagP99Ms: 40, windowMs: 25_000, lagMaxMs: 1_500, stalls: 1, inflightAtMaxLag: 3 });
  });

  it('reports zeros before the first sample', () => {
    expect(new LoopLagProbe(() => 0).health()).toEqual({ lagP99Ms: 0, windowMs: 600_000, lagMaxMs: 0, stalls: 0, inflightAtMaxLag: 0 });
  });
});
