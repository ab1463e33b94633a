// TEST DOUBLE, never shipped: an in-memory ChainPort for the light validator's loop tests.
// It keeps a tiny SubtensorModule for one subnet (uids, permits, LastUpdate, rate limit), records
// every set_weights, and has switches for outages, a missing block number, rejections and hangs.
import type { ChainPort, KeySigner, NeuronFacts, SubmitOutcome, SubnetFacts } from '../../electron/engine/chain/ports.ts';

export interface RecordedSubmission {
  signer: string;
  netuid: number;
  uids: number[];
  weights: number[];
  versionKey: bigint;
  block: number;
  outcome: SubmitOutcome;
}

export interface MemoryChainOptions {
  netuid?: number;
  block?: number;
  ownerHotkey?: string;
  weightsRateLimit?: number;
  activityCutoff?: number;
  weightsVersionKey?: bigint;
}

export class MemoryChain implements ChainPort {
  netuid: number;
  block: number;
  ownerHotkey: string | null;
  weightsRateLimit: number;
  activityCutoff: number;
  weightsVersionKey: bigint;
  commitRevealEnabled = false;
  /** hotkey -> uid */
  readonly uids = new Map<string, number>();
  readonly permits = new Set<string>();
  readonly stake = new Map<string, bigint>();
  readonly lastUpdate = new Map<number, number>();
  readonly submissions: RecordedSubmission[] = [];
  /** Every port method called, in order: lets tests prove the pre-gate did not touch the chain. */
  readonly calls: string[] = [];
  opens = 0;
  closes = 0;

  // Switches.
  down = false;
  blockUnavailable = false;
  /** Refuse the next set_weights with this outcome, once. */
  rejectNext: Extract<SubmitOutcome, { ok: false }> | null = null;
  /** set_weights never answers while set (a wedged node). */
  hangSetWeights = false;
  /** blockNumber never answers while set (a node that accepts connections and never replies). */
  hangBlockNumber = false;
  /** Called when a set_weights was included, before the answer goes back (kill -9 mid-submit tests). */
  onIncluded: ((s: RecordedSubmission) => void | Promise<void>) | null = null;

  constructor(opts: MemoryChainOptions = {}) {
    this.netuid = opts.netuid ?? 53;
    this.block = opts.block ?? 10_000;
    this.ownerHotkey = opts.ownerHotkey ?? null;
    this.weightsRateLimit = opts.weightsRateLimit ?? 100;
    this.activityCutoff = opts.activityCutoff ?? 5000;
    this.weightsVersionKey = opts.weightsVersionKey ?? 0n;
  }

  register(hotkey: string, opts: { permit?: boolean; stake?: bigint } = {}): number {
    const existing = this.uids.get(hotkey);
    if (existing !== undefined) return existing;
    const uid = this.uids.size;
    this.uids.set(hotkey, uid);
    if (opts.permit) this.permits.add(hotkey);
    this.stake.set(hotkey, opts.stake ?? 0n);
    return uid;
  }

  /** Reassign a uid to another hotkey, as the chain does when it prunes a neuron. */
  replace(oldHotkey: string, newHotkey: string): void {
    const uid = this.uids.get(oldHotkey);
    if (uid === undefined) throw new Error(`${oldHotkey} is not registered`);
    this.uids.delete(oldHotkey);
    this.uids.set(newHotkey, uid);
  }

  /** What a factory hands the service: counts connection opens and fails while the chain is down. */
  async open(): Promise<ChainPort> {
    this.opens++;
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:9944');
    return this;
  }

  private guard(name: string): void {
    this.calls.push(name);
    if (this.down) throw new Error('WebSocket is not connected');
  }

  async blockNumber(): Promise<number> {
    this.guard('blockNumber');
    if (this.hangBlockNumber) await new Promise(() => {});
    if (this.blockUnavailable) throw new Error('chain_getHeader: unavailable');
    return this.block;
  }

  async subnetFacts(netuid: number): Promise<SubnetFacts> {
    this.guard('subnetFacts');
    return {
      netuid,
      block: this.block,
      tempo: 360,
      weightsRateLimit: this.weightsRateLimit,
      activityCutoff: this.activityCutoff,
      commitRevealEnabled: this.commitRevealEnabled,
      weightsVersionKey: this.weightsVersionKey,
      ownerHotkey: this.ownerHotkey,
      burnRao: 1_000_000_000n,
      subnetworkN: this.uids.size,
    };
  }

  async neuron(_netuid: number, hotkey: string): Promise<NeuronFacts> {
    this.guard('neuron');
    const uid = this.uids.get(hotkey) ?? null;
    return {
      hotkey,
      uid,
      validatorPermit: this.permits.has(hotkey),
      lastUpdate: uid === null ? null : (this.lastUpdate.get(uid) ?? 0),
      stakeRao: this.stake.get(hotkey) ?? 0n,
    };
  }

  async hotkeyUids(_netuid: number): Promise<Map<string, number>> {
    this.guard('hotkeyUids');
    return new Map(this.uids);
  }

  async setWeights(signer: KeySigner, netuid: number, uids: number[], weights: number[], versionKey: bigint): Promise<SubmitOutcome> {
    this.guard('setWeights');
    if (this.hangSetWeights) await new Promise(() => {});
    const outcome = this.judge(signer, netuid, uids, weights, versionKey);
    const rec: RecordedSubmission = { signer: signer.address, netuid, uids: [...uids], weights: [...weights], versionKey, block: this.block, outcome };
    this.submissions.push(rec);
    if (outcome.ok) {
      const uid = this.uids.get(signer.address);
      if (uid !== undefined) this.lastUpdate.set(uid, this.block);
      if (this.onIncluded) await this.onIncluded(rec);
    }
    return outcome;
  }

  private judge(signer: KeySigner, netuid: number, uids: number[], weights: number[], versionKey: bigint): SubmitOutcome {
    if (this.rejectNext) {
      const r = this.rejectNext;
      this.rejectNext = null;
      return r;
    }
    const fail = (kind: 'pool' | 'dispatch', code: string, message: string): SubmitOutcome => ({ ok: false, kind, code, message });
    if (netuid !== this.netuid) return fail('dispatch', 'SubnetNotExists', 'no such subnet');
    if (this.commitRevealEnabled) return fail('dispatch', 'CommitRevealEnabled', 'commit-reveal is enabled');
    if (uids.length !== weights.length) return fail('dispatch', 'WeightVecNotEqualSize', 'uids and weights differ in length');
    const uid = this.uids.get(signer.address);
    if (uid === undefined) return fail('pool', 'Custom:19', 'the hotkey is not registered on this subnet');
    if (this.weightsVersionKey !== 0n && versionKey < this.weightsVersionKey) return fail('dispatch', 'IncorrectWeightVersionKey', 'version key too low');
    const last = this.lastUpdate.get(uid) ?? 0;
    if (last !== 0 && this.block - last < this.weightsRateLimit) return fail('pool', 'Custom:6', 'SettingWeightsTooFast: wait for the rate limit');
    if (!this.permits.has(signer.address)) return fail('dispatch', 'NeuronNoValidatorPermit', 'the hotkey has no validator permit');
    if (new Set(uids).size !== uids.length) return fail('dispatch', 'DuplicateUids', 'duplicate uids');
    const known = new Set(this.uids.values());
    if (uids.some((u) => !known.has(u))) return fail('dispatch', 'UidVecContainInvalidOne', 'unknown uid');
    return { ok: true, extrinsicHash: `0x${(this.submissions.length + 1).toString(16).padStart(64, '0')}`, blockHash: `0x${this.block.toString(16).padStart(64, '0')}`, blockNumber: this.block + 1 };
  }

  async freeBalance(_address: string): Promise<bigint> {
    this.guard('freeBalance');
    return 0n;
  }

  async burnedRegister(): Promise<SubmitOutcome> {
    this.guard('burnedRegister');
    return { ok: false, kind: 'refused', code: 'unsupported', message: 'the memory chain does not register' };
  }

  async registerLimit(): Promise<SubmitOutcome> {
    this.guard('registerLimit');
    return { ok: false, kind: 'refused', code: 'unsupported', message: 'the memory chain does not register' };
  }

  async close(): Promise<void> {
    this.closes++;
  }

  /** Successful submissions only. */
  landed(): RecordedSubmission[] {
    return this.submissions.filter((s) => s.outcome.ok);
  }
}
