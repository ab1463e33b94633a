// TEST DOUBLE. What the dev chain's transaction pool does with a submitted extrinsic: decode it with the
// real metadata, check era, nonce and the sr25519 signature over the signing payload (all 13 transaction
// extensions of spec 424 included), then the SubtensorTransactionExtension pre-checks. Rejections carry the
// JSON-RPC error a subtensor node answers with (code 1010, "Invalid Transaction", data).
import type { Extrinsic } from '@polkadot/types/interfaces';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import type { DevRuntime } from './runtime.ts';
import type { DevChainState } from './state.ts';
import { setWeightsPoolCheck, type RegisterArgs, type SetWeightsArgs } from './dispatch.ts';
import type { CommitArgs } from './commit-reveal.ts';

const { blake2AsHex, blake2AsU8a, signatureVerify } = polkadot('@polkadot/util-crypto');

export type DecodedCall =
  | { kind: 'set_weights'; args: SetWeightsArgs }
  | { kind: 'register'; method: 'burned_register' | 'register_limit'; args: RegisterArgs }
  | { kind: 'commit'; method: 'commit_timelocked_weights' | 'commit_timelocked_mechanism_weights'; args: CommitArgs }
  | { kind: 'other'; section: string; method: string };

export interface PoolTx {
  hex: string;
  hash: string;
  signer: string;
  nonce: number;
  call: DecodedCall;
}

export interface RpcError {
  code: number;
  message: string;
  data?: string;
}

export interface ChainView {
  genesisHash: string;
  best: number;
  hashOf(block: number): string | undefined;
}

const invalid = (data: string): RpcError => ({ code: 1010, message: 'Invalid Transaction', data });

interface Primitive {
  args: Record<string, unknown>;
}

function decodeCall(ext: Extrinsic): DecodedCall {
  const section = ext.method.section;
  const method = ext.method.method;
  const args = (ext.method.toPrimitive() as unknown as Primitive).args;
  const num = (v: unknown) => Number(v);
  if (section === 'subtensorModule' && method === 'setWeights') {
    return {
      kind: 'set_weights',
      args: {
        netuid: num(args['netuid']),
        dests: (args['dests'] as unknown[]).map(num),
        weights: (args['weights'] as unknown[]).map(num),
        versionKey: BigInt(String(args['version_key'])),
      },
    };
  }
  if (section === 'subtensorModule' && (method === 'burnedRegister' || method === 'registerLimit')) {
    const reg: RegisterArgs = { netuid: num(args['netuid']), hotkey: String(args['hotkey']) };
    if (method === 'registerLimit') reg.limitPrice = BigInt(String(args['limit_price']));
    return { kind: 'register', method: method === 'burnedRegister' ? 'burned_register' : 'register_limit', args: reg };
  }
  if (section === 'subtensorModule' && (method === 'commitTimelockedWeights' || method === 'commitTimelockedMechanismWeights')) {
    const commit = ext.method.args[method === 'commitTimelockedWeights' ? 1 : 2]?.toU8a(true) ?? new Uint8Array(0);
    return {
      kind: 'commit',
      method: method === 'commitTimelockedWeights' ? 'commit_timelocked_weights' : 'commit_timelocked_mechanism_weights',
      args: { netuid: num(args['netuid']), mecid: num(args['mecid'] ?? 0), commit, revealRound: BigInt(String(args['reveal_round'])), version: num(args['commit_reveal_version']) },
    };
  }
  return { kind: 'other', section, method };
}

/** Rebuild the payload the signer signed and verify the signature: a wrong extension byte fails here. */
export function verifyExtrinsicSignature(rt: DevRuntime, ext: Extrinsic, blockHash: string, genesisHash: string): boolean {
  const payload = rt.registry.createType(
    'ExtrinsicPayload',
    {
      method: ext.method.toHex(),
      era: ext.era,
      nonce: ext.nonce,
      tip: ext.tip,
      mode: ext.mode,
      metadataHash: ext.metadataHash,
      specVersion: rt.version.specVersion,
      transactionVersion: rt.version.transactionVersion,
      genesisHash,
      blockHash,
    },
    { version: ext.version & 0x7f },
  );
  const bytes = payload.toU8a({ method: true });
  const message = bytes.length > 256 ? blake2AsU8a(bytes) : bytes;
  const r = signatureVerify(message, ext.signature, ext.signer.toString());
  return r.isValid && r.crypto === 'sr25519';
}

/** pendingNonces: how many txs of each signer already wait in the pool (their nonces come next). */
export function checkExtrinsic(
  rt: DevRuntime,
  chain: ChainView,
  state: DevChainState,
  pendingNonces: ReadonlyMap<string, number>,
  hex: string,
): { ok: true; tx: PoolTx } | { ok: false; error: RpcError } {
  let ext: Extrinsic;
  try {
    ext = rt.registry.createType('Extrinsic', hex);
  } catch (e) {
    return { ok: false, error: { code: 1002, message: 'Verification Error: Could not decode', data: String(e) } };
  }
  if (!ext.isSigned) return { ok: false, error: invalid('Transaction call is not expected') };
  const signer = ext.signer.toString();

  let blockHash = chain.genesisHash;
  if (ext.era.isMortalEra) {
    const era = ext.era.asMortalEra;
    const birth = era.birth(chain.best);
    if (chain.best >= era.death(chain.best)) return { ok: false, error: invalid('Transaction is outdated') };
    const h = chain.hashOf(birth);
    if (!h) return { ok: false, error: invalid('Transaction has an ancient birth block') };
    blockHash = h;
  }
  if (!verifyExtrinsicSignature(rt, ext, blockHash, chain.genesisHash)) {
    return { ok: false, error: invalid('Transaction has a bad signature') };
  }

  const nonce = ext.nonce.toNumber();
  const expected = state.account(signer).nonce + (pendingNonces.get(signer) ?? 0);
  if (nonce < expected) return { ok: false, error: invalid('Transaction is outdated') };
  // A real pool parks future nonces; the double refuses them so a nonce bug shows up at once.
  if (nonce > expected) return { ok: false, error: invalid('Transaction will be valid in the future') };

  const call = decodeCall(ext);
  if (call.kind === 'set_weights') {
    const custom = setWeightsPoolCheck(state, signer, call.args);
    if (custom !== null) return { ok: false, error: invalid(`Custom error: ${custom}`) };
  }
  if (call.kind === 'commit') {
    const custom = state.commitReveal.poolCheck(state, signer, call.args);
    if (custom !== null) return { ok: false, error: invalid(`Custom error: ${custom}`) };
  }
  return { ok: true, tx: { hex, hash: blake2AsHex(ext.toU8a()), signer, nonce, call } };
}
