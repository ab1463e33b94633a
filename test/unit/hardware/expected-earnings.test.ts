// "Show what works": the expected earnings of each listed rig, from the chain's last epoch, with its basis.
import { describe, expect, it } from 'vitest';
import { expectedEarnings } from '../../../electron/engine/hardware/expected-earnings.ts';
import type { MinerPoolFacts } from '../../../electron/engine/chain/ports.ts';

const pool = (minerTaoPerDay: number[]): MinerPoolFacts => ({ netuid: 53, block: 1200, tempo: 360, alphaPriceTao: 0.02, minerTaoPerDay });

describe('expected earnings of a listed rig', () => {
  it("an even share of the last epoch's miner emission, with this rig as one more miner, naming the block and the count", () => {
    const e = expectedEarnings(true, pool([6, 2, 4]));
    expect(e.taoPerDay).toBeCloseTo(12 / 4, 10);
    expect(e.basis).toMatch(/^estimate: /);
    expect(e.basis).toContain('block 1200: 12.00 τ/day over 3 earning miners');
    expect(e.basis).toContain('4 in all');
  });

  it('one earning miner is said in the singular, and a tiny pool keeps its digits', () => {
    const e = expectedEarnings(true, pool([0.004]));
    expect(e.taoPerDay).toBeCloseTo(0.002, 10);
    expect(e.basis).toContain('0.0040 τ/day over 1 earning miner)');
  });

  it('a rig that cannot pass the latency gate earns nothing, whatever the network pays', () => {
    for (const p of [pool([10, 10]), null]) {
      const e = expectedEarnings(false, p);
      expect(e.taoPerDay).toBe(0);
      expect(e.basis).toMatch(/would not pass the gateway's per-token latency gate/);
    }
  });

  it('no chain read, or no earning miner: "not enough data" with the reason, never a figure', () => {
    expect(expectedEarnings(true, null, 'the chain could not be read (refused)')).toEqual({ taoPerDay: null, basis: 'not enough data: the chain could not be read (refused)' });
    const none = expectedEarnings(true, pool([]));
    expect(none.taoPerDay).toBeNull();
    expect(none.basis).toBe('not enough data: no miner earned on subnet 53 at the last epoch (block 1200)');
  });

  it('hostile figures from a peer (NaN, infinite, negative) are left out, not averaged in', () => {
    const e = expectedEarnings(true, pool([Number.NaN, Number.POSITIVE_INFINITY, -5, 3]));
    expect(e.taoPerDay).toBeCloseTo(1.5, 10);
    expect(e.basis).toContain('over 1 earning miner)');
    expect(expectedEarnings(true, pool([Number.NaN])).taoPerDay).toBeNull();
  });
});
