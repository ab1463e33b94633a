// TEST DOUBLE. The runtime APIs (`state_call`) the dev chain answers. Inputs are decoded and outputs encoded
// with the types the real metadata declares for each method, so @polkadot/api's `api.call.*` decodes them.
import type { Codec } from '@polkadot/types/types';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import type { DevChain } from './chain.ts';

const { compactAddLength, hexToU8a, u8aConcat, u8aToHex } = polkadot('@polkadot/util');

/** Some(OpaqueMetadata) / OpaqueMetadata encoded by hand: createType would read the raw bytes as length-prefixed. */
const opaqueMetadata = (chain: DevChain, option: boolean) => new Encoded(u8aConcat(option ? new Uint8Array([1]) : new Uint8Array(0), compactAddLength(chain.rt.metadataBytes)));

/** A handler result that is already SCALE-encoded. */
class Encoded {
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
}

type Handler = (chain: DevChain, args: Codec[]) => unknown;

const HANDLERS: Record<string, Handler> = {
  Metadata_metadata_versions: () => [16],
  Metadata_metadata_at_version: (chain, [v]) => (Number(v?.toString()) === 16 ? opaqueMetadata(chain, true) : null),
  Metadata_metadata: (chain) => opaqueMetadata(chain, false),
  AccountNonceApi_account_nonce: (chain, [who]) => {
    const address = String(who?.toString());
    return chain.state.account(address).nonce + chain.pendingFor(address);
  },
  SubnetInfoRuntimeApi_get_next_epoch_start_block: (chain, [netuid]) => {
    const s = chain.state.subnet(Number(netuid?.toString()));
    return s ? s.lastEpochBlock + s.tempo : null;
  },
  // The double charges no fees, and says so: paymentInfo() answers a zero fee.
  TransactionPaymentApi_query_info: () => ({ weight: { refTime: 100_000_000, proofSize: 4_096 }, class: 'Normal', partialFee: 0 }),
  SwapRuntimeApi_current_alpha_price: (chain, [netuid]) => {
    const s = chain.state.subnet(Number(netuid?.toString()));
    if (!s || s.subnetAlphaInRao === 0n) return 0n;
    return (s.subnetTaoRao * 1_000_000_000n) / s.subnetAlphaInRao;
  },
};

export function runtimeCall(chain: DevChain, name: string, data: string): { ok: true; result: string } | { ok: false; message: string } {
  const handler = HANDLERS[name];
  const sep = name.indexOf('_');
  const apiName = name.slice(0, sep);
  const methodName = name.slice(sep + 1);
  const api = chain.rt.metadata.asLatest.apis.find((a) => a.name.toString() === apiName);
  const method = api?.methods.find((m) => m.name.toString() === methodName);
  if (!handler || !method) return { ok: false, message: `dev chain (test double) does not implement runtime API ${name}` };
  const { registry } = chain.rt;
  const bytes = hexToU8a(data);
  let offset = 0;
  const args: Codec[] = [];
  for (const input of method.inputs) {
    const arg = registry.createType(registry.createLookupType(input.type), bytes.subarray(offset));
    offset += arg.encodedLength;
    args.push(arg);
  }
  const value = handler(chain, args);
  if (value instanceof Encoded) return { ok: true, result: u8aToHex(value.bytes) };
  return { ok: true, result: u8aToHex(registry.createType(registry.createLookupType(method.output), value).toU8a()) };
}
