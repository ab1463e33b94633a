// Reads the chain client shares between its public facts: the SubtensorModule accessor (a missing
// item means another runtime), the next epoch's first block, and the subnet's payout vectors in one
// batched query. Kept apart from polkadot-chain-client.ts, which owns the connection and the calls.
import type { ApiPromise } from '@polkadot/api';
import { AppFailure, errorMessage } from '../../../shared/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { big, bigVec, num, numVec } from './codec-values.ts';
import { legacyNextEpochBlock } from './derived.ts';

export type SubtensorQuery = NonNullable<NonNullable<ApiPromise['query'][string]>[string]>;
export type SubtensorTx = NonNullable<NonNullable<ApiPromise['tx'][string]>[string]>;

/** One batched read of a subnet's payout vectors (indexed by uid) and its pool reserves. */
export interface SubnetRead {
  block: number;
  /** Blocks per epoch, at least 1. */
  tempo: number;
  incentive: number[];
  dividends: number[];
  emissionRao: bigint[];
  subnetTaoRao: bigint;
  subnetAlphaInRao: bigint;
}

/** SubtensorModule storage entries or calls by name; a missing one means the node runs another runtime. */
export function subtensorModule(api: ApiPromise, kind: 'query'): (name: string) => SubtensorQuery;
export function subtensorModule(api: ApiPromise, kind: 'tx'): (name: string) => SubtensorTx;
export function subtensorModule(api: ApiPromise, kind: 'query' | 'tx') {
  const section = api[kind]['subtensorModule'];
  return (name: string) => {
    const item = section?.[name];
    if (!item) {
      throw new AppFailure('chain-unreachable', `This node does not look like a Bittensor (subtensor) node: SubtensorModule.${name} is missing. Pick a Bittensor endpoint.`);
    }
    return item;
  };
}

/** The runtime API's answer when the node has it, else the legacy formula (older runtimes). */
export async function readNextEpochBlock(api: ApiPromise, log: Logger, netuid: number, block: number, tempo: number): Promise<number> {
  try {
    const fn = api.call['subnetInfoRuntimeApi']?.['getNextEpochStartBlock'];
    if (fn) {
      const v = (await fn(netuid)).toJSON();
      if (typeof v === 'number' || typeof v === 'string') return Number(v);
    }
  } catch (e) {
    log.debug(`get_next_epoch_start_block unavailable (${errorMessage(e)}); using the legacy formula`);
  }
  return legacyNextEpochBlock(block, netuid, tempo);
}

/**
 * The subnet's per-uid payout vectors and pool reserves at one block, in one batched query: the miner pool
 * and one uid's earnings both derive from this same read. Incentive and dividends stay raw u16 (0..65535).
 */
export async function readSubnet(api: ApiPromise, netuid: number): Promise<SubnetRead> {
  const q = subtensorModule(api, 'query');
  const [header, values] = await Promise.all([
    api.rpc.chain.getHeader(),
    api.queryMulti([
      [q('tempo'), netuid],
      [q('incentive'), netuid],
      [q('dividends'), netuid],
      [q('emission'), netuid],
      [q('subnetTAO'), netuid],
      [q('subnetAlphaIn'), netuid],
    ]),
  ]);
  const [tempo, incentive, dividends, emission, tao, alphaIn] = values;
  return {
    block: header.number.toNumber(),
    tempo: Math.max(1, num(tempo)),
    incentive: numVec(incentive),
    dividends: numVec(dividends),
    emissionRao: bigVec(emission),
    subnetTaoRao: big(tao),
    subnetAlphaInRao: big(alphaIn),
  };
}
