// "Show what works": what a listed rig would earn on the current network, as an estimate that names its basis.
// The chain says what the subnet paid its miners at the last epoch and how many earned; a rig that passes the
// gates joins them and, with a rig like theirs, takes an even share. A rig that cannot pass the gates earns nothing.
// Never a guess dressed as data: without a chain read or an earning miner there is no figure.
import type { ExpectedEarnings } from '../../../shared/hardware.ts';
import type { MinerPoolFacts } from '../chain/ports.ts';

const tao = (x: number) => `${x < 0.01 ? x.toPrecision(2) : x.toFixed(2)} τ/day`;

/**
 * `passes`: the planner says the rig serves within the gates (false: offloaded weights, too slow to qualify).
 * `pool`: the chain's last epoch (null: not read, with `why`).
 */
export function expectedEarnings(passes: boolean, pool: MinerPoolFacts | null, why = 'the chain could not be read'): ExpectedEarnings {
  if (!passes) return { taoPerDay: 0, basis: "estimate: nothing, since with weights in RAM it would not pass the gateway's per-token latency gate, so it gets no paid traffic" };
  if (!pool) return { taoPerDay: null, basis: `not enough data: ${why}` };
  const earning = pool.minerTaoPerDay.filter((x) => Number.isFinite(x) && x >= 0);
  if (earning.length === 0) return { taoPerDay: null, basis: `not enough data: no miner earned on subnet ${pool.netuid} at the last epoch (block ${pool.block})` };
  const total = earning.reduce((a, b) => a + b, 0);
  const share = total / (earning.length + 1);
  return {
    taoPerDay: share,
    basis: `estimate: an even share of the miner emission at the last epoch (block ${pool.block}: ${tao(total)} over ${earning.length} earning miner${earning.length === 1 ? '' : 's'}), split with this rig as one more (${earning.length + 1} in all); what it really earns follows the paid traffic it serves`,
  };
}
