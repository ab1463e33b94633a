// The simulated network's faucet as the engine reads it: two JSON-RPC methods only the dev chain (the simulated
// network's subtensor stand-in) answers. A real node does not list them in rpc_methods, so the panel never offers
// a faucet against a real chain; the answers are a peer's and are checked like any other.
import * as v from 'valibot';
import type { DevFaucetDrip, DevFaucetOffer } from './ports.ts';

export const FAUCET_INFO_METHOD = 'engyDev_faucet';
export const FAUCET_DRIP_METHOD = 'engyDev_faucetDrip';

const rao = v.pipe(v.string(), v.regex(/^\d{1,30}$/));
const OfferSchema = v.object({
  label: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  netuid: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535)),
  dripRao: rao,
  burnRao: rao,
  feeRao: rao,
});
const DripSchema = v.object({ address: v.pipe(v.string(), v.regex(/^[1-9A-HJ-NP-Za-km-z]{40,60}$/)), creditedRao: rao, freeRao: rao, block: v.pipe(v.number(), v.integer(), v.minValue(0)) });

/** null when the answer is not a faucet offer (then the panel offers no faucet). */
export function readFaucetOffer(raw: unknown): DevFaucetOffer | null {
  const r = v.safeParse(OfferSchema, raw);
  if (!r.success) return null;
  const o = r.output;
  return { label: o.label, netuid: o.netuid, dripRao: BigInt(o.dripRao), burnRao: BigInt(o.burnRao), feeRao: BigInt(o.feeRao) };
}

export function readFaucetDrip(raw: unknown): DevFaucetDrip | null {
  const r = v.safeParse(DripSchema, raw);
  if (!r.success) return null;
  const d = r.output;
  return { address: d.address, creditedRao: BigInt(d.creditedRao), freeRao: BigInt(d.freeRao), block: d.block };
}
