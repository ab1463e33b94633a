// TEST DOUBLE (simulated network only): a faucet on the dev chain. Two extra JSON-RPC methods that no real
// subtensor node has, so a client learns from `rpc_methods` whether it talks to a chain with a faucet:
//   engyDev_faucet            -> { label, netuid, dripRao, burnRao, feeRao }   what one drip gives and why
//   engyDev_faucetDrip [ss58] -> { address, creditedRao, freeRao, block }     credits the account
// One drip is the subnet's current Burn plus a fee allowance (registration's cost, with room for fees on a
// real chain); an account already holding that much gets nothing more (no endless minting).
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import type { DevChain } from './chain.ts';
import { FAUCET_DRIP_METHOD, FAUCET_INFO_METHOD } from '../../../electron/engine/chain/dev-faucet.ts';

const { decodeAddress, encodeAddress } = polkadot('@polkadot/util-crypto');

export interface FaucetOptions {
  /** The subnet whose registration the drip pays for. */
  netuid: number;
  /** Added to the burn: what fees could cost (the dev chain charges none; a real chain would). */
  feeRao: bigint;
  /** Shown by the panel beside the button, so nobody mistakes it for real TAO. */
  label: string;
}

export class FaucetRefusal extends Error {}

/** ss58 (any prefix) -> prefix 42, or a refusal in words. */
function normalise(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length < 40 || raw.length > 60) throw new FaucetRefusal('the faucet needs an SS58 address');
  try {
    return encodeAddress(decodeAddress(raw), 42);
  } catch {
    throw new FaucetRefusal(`"${raw.slice(0, 60)}" is not an SS58 address`);
  }
}

export function faucetMethods(chain: DevChain, o: FaucetOptions): Record<string, (params: unknown[]) => unknown> {
  const burn = () => chain.state.subnet(o.netuid)?.burnRao ?? 0n;
  const info = () => {
    const b = burn();
    return { label: o.label, netuid: o.netuid, dripRao: (b + o.feeRao).toString(), burnRao: b.toString(), feeRao: o.feeRao.toString() };
  };
  return {
    [FAUCET_INFO_METHOD]: () => info(),
    [FAUCET_DRIP_METHOD]: ([address]) => {
      const who = normalise(address);
      const drip = burn() + o.feeRao;
      const free = chain.state.freeBalance(who);
      const credited = free >= drip ? 0n : drip - free;
      if (credited > 0n) chain.state.setBalance(who, free + credited);
      return { address: who, creditedRao: credited.toString(), freeRao: (free + credited).toString(), block: chain.best.number };
    },
  };
}
