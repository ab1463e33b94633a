// TEST DOUBLE, never shipped: the validator's MemoryChain (wrapped, not edited) plus the registration side of SubtensorModule
// (balances, Burn, burned_register / register_limit in the order subtensor checks them, CHAIN.md 3.2).
// Every registration is signed by the given KeySigner and the signature verified, so a test proves the
// real coldkey signed it.
import { polkadot } from '../../electron/engine/lib/polkadot.ts';
import type { ChainPort, KeySigner, NeuronFacts, SubmitOutcome, SubnetFacts } from '../../electron/engine/chain/ports.ts';
import { MemoryChain, type MemoryChainOptions } from './memory-chain.ts';

const { stringToU8a, u8aConcat, bnToU8a } = polkadot('@polkadot/util');
const { decodeAddress, sr25519Verify } = polkadot('@polkadot/util-crypto');

export interface RecordedRegistration {
  coldkey: string;
  hotkey: string;
  netuid: number;
  method: 'burned_register' | 'register_limit';
  limitPriceRao?: bigint;
  paidRao: bigint;
  outcome: SubmitOutcome;
}

export class RegistrationChain implements ChainPort {
  /** The neurons, permits and stake; `base.register(hotkey)` seeds an already-registered hotkey. */
  readonly base: MemoryChain;
  readonly calls: string[] = [];
  burnRao = 1_000_000_000n;
  registrationAllowed = true;
  readonly balances = new Map<string, bigint>();
  /** Hotkey -> coldkey (SubtensorModule.Owner), set by the first registration. */
  readonly owners = new Map<string, string>();
  readonly registrations: RecordedRegistration[] = [];
  /** Runs after the service's pre-checks, as the extrinsic is submitted: moves price or balance under its feet. */
  beforeSubmit: (() => void) | null = null;
  /** Answer the next registration with a transport failure (the node went away mid-submit). */
  dropNext = false;

  constructor(opts: MemoryChainOptions = {}) {
    this.base = new MemoryChain(opts);
  }

  blockNumber(): Promise<number> {
    return this.base.blockNumber();
  }
  neuron(netuid: number, hotkey: string): Promise<NeuronFacts> {
    this.calls.push('neuron');
    return this.base.neuron(netuid, hotkey);
  }
  hotkeyUids(netuid: number): Promise<Map<string, number>> {
    return this.base.hotkeyUids(netuid);
  }
  setWeights(signer: KeySigner, netuid: number, uids: number[], weights: number[], versionKey: bigint): Promise<SubmitOutcome> {
    return this.base.setWeights(signer, netuid, uids, weights, versionKey);
  }
  close(): Promise<void> {
    return this.base.close();
  }

  async subnetFacts(netuid: number): Promise<SubnetFacts> {
    this.calls.push('subnetFacts');
    return { ...(await this.base.subnetFacts(netuid)), burnRao: this.burnRao };
  }

  async freeBalance(address: string): Promise<bigint> {
    this.calls.push('freeBalance');
    return this.balances.get(address) ?? 0n;
  }

  async burnedRegister(coldkey: KeySigner, netuid: number, hotkey: string): Promise<SubmitOutcome> {
    this.calls.push('burnedRegister');
    return this.applyRegistration(coldkey, netuid, hotkey, 'burned_register');
  }

  async registerLimit(coldkey: KeySigner, netuid: number, hotkey: string, limitPriceRao: bigint): Promise<SubmitOutcome> {
    this.calls.push('registerLimit');
    return this.applyRegistration(coldkey, netuid, hotkey, 'register_limit', limitPriceRao);
  }

  private applyRegistration(coldkey: KeySigner, netuid: number, hotkey: string, method: RecordedRegistration['method'], limit?: bigint): SubmitOutcome {
    this.beforeSubmit?.();
    const payload = u8aConcat(stringToU8a(method), bnToU8a(netuid, { bitLength: 16 }), decodeAddress(hotkey));
    const signed = sr25519Verify(payload, coldkey.sign(payload), decodeAddress(coldkey.address));
    const outcome = this.judgeRegistration(signed, coldkey.address, netuid, hotkey, limit);
    const rec: RecordedRegistration = { coldkey: coldkey.address, hotkey, netuid, method, paidRao: outcome.ok ? this.burnRao : 0n, outcome };
    if (limit !== undefined) rec.limitPriceRao = limit;
    this.registrations.push(rec);
    if (outcome.ok) {
      this.balances.set(coldkey.address, (this.balances.get(coldkey.address) ?? 0n) - this.burnRao);
      this.owners.set(hotkey, coldkey.address);
      this.base.register(hotkey);
      this.base.block++;
    }
    return outcome;
  }

  private judgeRegistration(signed: boolean, coldkey: string, netuid: number, hotkey: string, limit?: bigint): SubmitOutcome {
    const fail = (kind: 'pool' | 'dispatch' | 'transport', code: string, message: string): SubmitOutcome => ({ ok: false, kind, code, message });
    if (this.dropNext) {
      this.dropNext = false;
      return fail('transport', 'disconnected', 'disconnected from ws://127.0.0.1:9944: 1006');
    }
    if (!signed) return fail('pool', 'BadProof', '1010: Invalid Transaction: Transaction has a bad signature');
    if (netuid !== this.base.netuid) return fail('dispatch', 'SubnetNotExists', 'SubnetNotExists');
    if (!this.registrationAllowed) return fail('dispatch', 'SubNetRegistrationDisabled', 'SubNetRegistrationDisabled');
    if (this.base.uids.has(hotkey)) return fail('dispatch', 'HotKeyAlreadyRegisteredInSubNet', 'HotKeyAlreadyRegisteredInSubNet');
    if (limit !== undefined && this.burnRao > limit) return fail('dispatch', 'RegistrationPriceLimitExceeded', 'RegistrationPriceLimitExceeded');
    if ((this.balances.get(coldkey) ?? 0n) < this.burnRao) return fail('dispatch', 'NotEnoughBalanceToStake', 'NotEnoughBalanceToStake');
    const owner = this.owners.get(hotkey);
    if (owner !== undefined && owner !== coldkey) return fail('dispatch', 'NonAssociatedColdKey', 'NonAssociatedColdKey');
    const n = this.registrations.length + 1;
    return { ok: true, extrinsicHash: `0x${n.toString(16).padStart(64, 'a')}`, blockHash: `0x${this.base.block.toString(16).padStart(64, '0')}`, blockNumber: this.base.block + 1 };
  }
}
