// TEST DOUBLE. The in-memory SubtensorModule of the dev chain: a few subnets, their neurons and the balances,
// with a seeding API (what a test or demo starts from) and an inspection API (what landed on "chain").

export type Big = bigint | number | string;

export interface SeedNeuron {
  hotkey: string;
  /** Coldkey that owns the hotkey; defaults to the hotkey itself. */
  coldkey?: string;
  validatorPermit?: boolean;
  /** Alpha on the hotkey (TotalHotkeyAlpha), rao. */
  stakeRao?: Big;
  lastUpdate?: number;
  incentive?: number;
  dividends?: number;
  emissionRao?: Big;
}

export interface SeedSubnet {
  netuid: number;
  tempo?: number;
  immunityPeriod?: number;
  weightsRateLimit?: Big;
  commitRevealEnabled?: boolean;
  weightsVersionKey?: Big;
  burnRao?: Big;
  ownerHotkey?: string;
  ownerColdkey?: string;
  activityCutoffFactorMilli?: number;
  maxAllowedUids?: number;
  minAllowedWeights?: number;
  maxWeightsLimit?: number;
  registrationAllowed?: boolean;
  subnetTaoRao?: Big;
  subnetAlphaInRao?: Big;
  /** Recompute Incentive/Dividends/Emission at each epoch from the landed weights (a toy, not Yuma). */
  simulateEpochs?: boolean;
  neurons?: SeedNeuron[];
}

/** JSON-friendly: big numbers may be given as strings. */
export interface DevChainSeed {
  subnets?: SeedSubnet[];
  /** ss58 address -> free balance in rao. */
  balances?: Record<string, Big>;
  stakeThreshold?: Big;
}

export interface DevNeuron {
  uid: number;
  hotkey: string;
  coldkey: string;
  validatorPermit: boolean;
  stakeRao: bigint;
  lastUpdate: number;
  weights: [number, number][];
  incentive: number;
  dividends: number;
  emissionRao: bigint;
  blockAtRegistration: number;
}

export interface DevSubnet {
  netuid: number;
  tempo: number;
  /** ImmunityPeriod(netuid): blocks a new registration cannot be pruned. */
  immunityPeriod: number;
  weightsRateLimit: bigint;
  commitRevealEnabled: boolean;
  weightsVersionKey: bigint;
  burnRao: bigint;
  ownerHotkey: string | null;
  ownerColdkey: string | null;
  activityCutoffFactorMilli: number;
  maxAllowedUids: number;
  minAllowedWeights: number;
  maxWeightsLimit: number;
  registrationAllowed: boolean;
  subnetTaoRao: bigint;
  subnetAlphaInRao: bigint;
  lastEpochBlock: number;
  /** The chain's clock (Timestamp.Now) at the last epoch; null before the first. */
  lastEpochAtMs: number | null;
  simulateEpochs: boolean;
  neurons: DevNeuron[];
}

export interface DevAccount {
  free: bigint;
  nonce: number;
}

/** One extrinsic the dev chain included, for tests to assert on. */
export interface AppliedExtrinsic {
  block: number;
  signer: string;
  section: string;
  method: string;
  args: unknown;
  /** null on success, else the module error name. */
  error: string | null;
}

import { DevCommitReveal } from './commit-reveal.ts';

const big = (v: Big | undefined, d: bigint): bigint => (v === undefined ? d : BigInt(v));

export class DevChainState {
  block = 0;
  /** Timestamp.Now of the best block: the wall clock when it was produced (validators measure block time from it). */
  timestampMs = 0;
  /** Timestamp.Now follows the wall clock (timestampMs) instead of the nominal 12 s per block (see DevChainOptions.clock). */
  wallClock = false;
  stakeThreshold = 0n;
  readonly subnets = new Map<number, DevSubnet>();
  readonly accounts = new Map<string, DevAccount>();
  /** Hotkey -> coldkey (SubtensorModule.Owner): set by the first registration. */
  readonly owners = new Map<string, string>();
  readonly applied: AppliedExtrinsic[] = [];
  /** Commit-reveal v4: commits, reveal periods, epoch indexes and the double's drand beacon. */
  readonly commitReveal = new DevCommitReveal();

  constructor(seed: DevChainSeed = {}) {
    this.apply(seed);
  }

  /** Adds to the current state: subnets are replaced by netuid, neurons appended, balances set. */
  apply(seed: DevChainSeed): void {
    if (seed.stakeThreshold !== undefined) this.stakeThreshold = BigInt(seed.stakeThreshold);
    for (const [addr, free] of Object.entries(seed.balances ?? {})) this.setBalance(addr, BigInt(free));
    for (const s of seed.subnets ?? []) {
      this.addSubnet(s);
      for (const n of s.neurons ?? []) this.addNeuron(s.netuid, n);
    }
  }

  addSubnet(s: SeedSubnet): DevSubnet {
    const subnet: DevSubnet = {
      netuid: s.netuid,
      tempo: s.tempo ?? 360,
      immunityPeriod: s.immunityPeriod ?? 4096,
      weightsRateLimit: big(s.weightsRateLimit, 100n),
      // The chain's default is true; a dev subnet is usually wanted with plain set_weights, so say it explicitly.
      commitRevealEnabled: s.commitRevealEnabled ?? false,
      weightsVersionKey: big(s.weightsVersionKey, 0n),
      burnRao: big(s.burnRao, 100_000_000n),
      ownerHotkey: s.ownerHotkey ?? null,
      ownerColdkey: s.ownerColdkey ?? null,
      activityCutoffFactorMilli: s.activityCutoffFactorMilli ?? 13889,
      maxAllowedUids: s.maxAllowedUids ?? 256,
      minAllowedWeights: s.minAllowedWeights ?? 1,
      maxWeightsLimit: s.maxWeightsLimit ?? 65535,
      registrationAllowed: s.registrationAllowed ?? true,
      subnetTaoRao: big(s.subnetTaoRao, 10_000_000_000_000n),
      subnetAlphaInRao: big(s.subnetAlphaInRao, 1_000_000_000_000_000n),
      lastEpochBlock: this.block,
      lastEpochAtMs: null,
      simulateEpochs: s.simulateEpochs ?? false,
      neurons: [],
    };
    this.subnets.set(s.netuid, subnet);
    return subnet;
  }

  addNeuron(netuid: number, n: SeedNeuron): DevNeuron {
    const subnet = this.subnet(netuid);
    if (!subnet) throw new Error(`dev chain seed: subnet ${netuid} does not exist`);
    if (subnet.neurons.some((x) => x.hotkey === n.hotkey)) throw new Error(`dev chain seed: ${n.hotkey} already on ${netuid}`);
    const neuron: DevNeuron = {
      uid: subnet.neurons.length,
      hotkey: n.hotkey,
      coldkey: n.coldkey ?? n.hotkey,
      validatorPermit: n.validatorPermit ?? false,
      stakeRao: big(n.stakeRao, 0n),
      lastUpdate: n.lastUpdate ?? 0,
      weights: [],
      incentive: n.incentive ?? 0,
      dividends: n.dividends ?? 0,
      emissionRao: big(n.emissionRao, 0n),
      blockAtRegistration: this.block,
    };
    subnet.neurons.push(neuron);
    if (!this.owners.has(n.hotkey)) this.owners.set(n.hotkey, neuron.coldkey);
    return neuron;
  }

  setBalance(address: string, free: bigint): void {
    this.account(address).free = free;
  }

  account(address: string): DevAccount {
    let a = this.accounts.get(address);
    if (!a) {
      a = { free: 0n, nonce: 0 };
      this.accounts.set(address, a);
    }
    return a;
  }

  subnet(netuid: number): DevSubnet | undefined {
    return this.subnets.get(netuid);
  }

  // ---- inspection ----

  neuron(netuid: number, hotkey: string): DevNeuron | undefined {
    return this.subnet(netuid)?.neurons.find((n) => n.hotkey === hotkey);
  }

  /** The weights row uid set on netuid, as stored (max-upscaled), or [] when it never set any. */
  weightsOf(netuid: number, uid: number): [number, number][] {
    return this.subnet(netuid)?.neurons[uid]?.weights ?? [];
  }

  lastUpdateOf(netuid: number, uid: number): number | undefined {
    return this.subnet(netuid)?.neurons[uid]?.lastUpdate;
  }

  freeBalance(address: string): bigint {
    return this.accounts.get(address)?.free ?? 0n;
  }
}
