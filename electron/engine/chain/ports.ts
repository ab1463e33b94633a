// What the engines need from the chain, as an interface: the @polkadot/api client implements it,
// the validator and wallet services consume it, tests can drive either side against the dev chain.

export interface SubnetFacts {
  netuid: number;
  block: number;
  tempo: number;
  weightsRateLimit: number;
  activityCutoff: number;
  commitRevealEnabled: boolean;
  weightsVersionKey: bigint;
  /** SubnetOwnerHotkey(netuid): the burn recipient. */
  ownerHotkey: string | null;
  /** Burn(netuid) in rao: the current burned_register cost. */
  burnRao: bigint;
  subnetworkN: number;
  /** First block of the next epoch (SubnetInfoRuntimeApi.get_next_epoch_start_block; legacy formula as fallback). */
  nextEpochBlock?: number;
  /** StakeThreshold: minimum stake (rao) to set weights; the subnet owner is exempt. */
  stakeThresholdRao?: bigint;
  /** MinAllowedWeights(netuid): shortest weight vector the chain accepts (unless a single self-weight). */
  minAllowedWeights?: number;
}

/** Hotkeys by uid plus the per-uid vectors the panel shows, read at one moment. */
export interface MetagraphFacts {
  netuid: number;
  block: number;
  /** hotkeys[uid]. */
  hotkeys: string[];
  validatorPermit: boolean[];
  lastUpdate: number[];
}

/** What a neuron earned at the last epoch, and what that is worth (CHAIN.md 2.3). */
export interface EarningsFacts {
  netuid: number;
  uid: number;
  block: number;
  tempo: number;
  /** Incentive[uid] / 65535: the miner's share of the miner half. */
  incentive: number;
  /** Dividends[uid] / 65535: the validator's share. */
  dividends: number;
  /** Emission[uid]: alpha rao emitted to the uid at the last epoch. */
  emissionRao: bigint;
  subnetTaoRao: bigint;
  subnetAlphaInRao: bigint;
  /** TAO per alpha, SubnetTAO / SubnetAlphaIn (the 50/50 balancer spot price); 0 when the pool is empty. */
  alphaPriceTao: number;
  /** Emission / 1e9 * 7200 / tempo (12 s blocks). */
  alphaPerDay: number;
  /** alphaPerDay at the spot price; selling would slip. */
  taoPerDayAtSpot: number;
}

/** The subnet's miners at the last chain epoch, for "what would a rig earn here": read once, no uid needed. */
export interface MinerPoolFacts {
  netuid: number;
  block: number;
  tempo: number;
  alphaPriceTao: number;
  /** τ per day at the spot price of each uid that earned as a miner only (incentive > 0, no dividends). */
  minerTaoPerDay: number[];
}

export interface NeuronFacts {
  hotkey: string;
  uid: number | null;
  validatorPermit: boolean;
  /** Block of this uid's last weights/update, from LastUpdate(netuid)[uid]. */
  lastUpdate: number | null;
  /** Stake (alpha) held by the hotkey on the subnet, in rao units. */
  stakeRao: bigint;
  /** Immunity after registration: blocks left, from BlockAtRegistration + ImmunityPeriod - now (0 once over). */
  immunityBlocksLeft?: number;
}

/** What a commit-reveal v4 commit needs from the chain, read at one block (CHAIN.md 3.4). */
export interface CommitRevealFacts {
  netuid: number;
  block: number;
  /** CommitRevealWeightsEnabled(netuid). */
  enabled: boolean;
  /** CommitRevealWeightsVersion: the commit must carry exactly this. */
  version: number;
  /** RevealPeriodEpochs(netuid). */
  revealPeriodEpochs: number;
  tempo: number;
  /** get_next_epoch_start_block(netuid) (legacy formula as fallback). */
  nextEpochBlock: number;
  /** Timestamp.Now of the block, ms; null when the node does not say. */
  chainTimeMs: number | null;
  /** Drand.LastStoredRound: reveal rounds below it are refused by the pool. */
  lastStoredRound: number;
  /** Drand.BeaconConfig; null when unset (then quicknet is assumed, as the SDK does). */
  beacon: { publicKey: Uint8Array; genesisS: number; periodS: number } | null;
  /** True when the runtime has commit_timelocked_mechanism_weights (else commit_timelocked_weights). */
  mechanismCall: boolean;
}

/** One entry of TimelockedWeightCommits(netuid, epoch): a commit waiting for its reveal. */
export interface TimelockedCommit {
  who: string;
  epoch: number;
  commitBlock: number;
  commit: Uint8Array;
  revealRound: number;
}

/** Outcome of any extrinsic the app sends. */
export type SubmitOutcome =
  | { ok: true; extrinsicHash: string; blockHash: string; blockNumber: number }
  | {
      ok: false;
      /** pool: refused before inclusion (1010 Custom error N); dispatch: ExtrinsicFailed; transport: no answer. */
      kind: 'pool' | 'dispatch' | 'transport' | 'refused';
      /**
       * dispatch: module error name (NeuronNoValidatorPermit, SettingWeightsTooFast...).
       * pool: `Custom:N` (SubtensorTransactionExtension), a standard validity code (Payment, Stale, BadProof...),
       *   or Invalid/Dropped/Usurped.
       * transport: `timeout`, `disconnected` (the tx may still land: re-read state first), `rpc-error`.
       * refused (nothing sent): `CommitRevealEnabled`, `BadInput`.
       */
      code: string;
      /** Plain words: what happened and what to do. */
      message: string;
      extrinsicHash?: string;
    };

/** A signer that never exposes its secret: it signs payloads inside the engine (a hotkey, or a coldkey for registration). */
export interface KeySigner {
  address: string;
  sign(message: Uint8Array): Uint8Array;
}

export interface ChainPort {
  /** Current best block number. */
  blockNumber(): Promise<number>;
  /** Measured block time in ms from recent blocks' timestamps; null when unreadable. Optional: doubles may lack it. */
  blockTimeMs?(): Promise<number | null>;
  subnetFacts(netuid: number): Promise<SubnetFacts>;
  neuron(netuid: number, hotkey: string): Promise<NeuronFacts>;
  /** hotkey -> uid for every registered neuron of the subnet, read fresh (uids are reassigned). */
  hotkeyUids(netuid: number): Promise<Map<string, number>>;
  /** SubtensorModule.set_weights(netuid, uids, weights, versionKey), waiting for inclusion. */
  setWeights(signer: KeySigner, netuid: number, uids: number[], weights: number[], versionKey: bigint): Promise<SubmitOutcome>;
  /** Commit-reveal facts; absent on ports that cannot commit (the validator then refuses to submit under CR). */
  commitRevealFacts?(netuid: number): Promise<CommitRevealFacts>;
  /** commit_timelocked_mechanism_weights (mechanism 0) or commit_timelocked_weights, waiting for inclusion. */
  commitTimelockedWeights?(signer: KeySigner, netuid: number, commit: Uint8Array, revealRound: number, version: number): Promise<SubmitOutcome>;
  /** Every commit of the subnet (mechanism 0) still waiting for its reveal. */
  timelockedCommits?(netuid: number): Promise<TimelockedCommit[]>;
  /** Weights(netuid, uid) as stored (max-upscaled): [uid, value] rows. */
  weightsRow?(netuid: number, uid: number): Promise<[number, number][]>;
  /** Free balance of an account (the coldkey paying for registration), in rao. */
  freeBalance(address: string): Promise<bigint>;
  /** SubtensorModule.burned_register(netuid, hotkey), signed by the coldkey, waiting for inclusion. */
  burnedRegister(coldkey: KeySigner, netuid: number, hotkey: string): Promise<SubmitOutcome>;
  /** SubtensorModule.register_limit(netuid, hotkey, limit_price): refuses instead of paying more than the cap. */
  registerLimit(coldkey: KeySigner, netuid: number, hotkey: string, limitPriceRao: bigint): Promise<SubmitOutcome>;
  /** Every pure miner's emission at the last epoch (optional: doubles may lack it). */
  minerPool?(netuid: number): Promise<MinerPoolFacts>;
  /** The simulated network's faucet, when the chain offers one (its rpc_methods list it); null on a real node. */
  devFaucet?(): Promise<DevFaucetOffer | null>;
  /** Credits an account from that faucet; refused by the chain when it has none. */
  devFaucetDrip?(address: string): Promise<DevFaucetDrip>;
  close(): Promise<void>;
  /**
   * On a shared connection (chain/shared-connections.ts), where close() only hands the lease back: closes
   * the connection under every user, so a wedged one is never handed out again. Absent on one's own.
   */
  discard?(): Promise<void>;
}

/** What the simulated network's faucet gives: one registration's burn plus a fee allowance (test τ, not real). */
export interface DevFaucetOffer {
  label: string;
  netuid: number;
  dripRao: bigint;
  burnRao: bigint;
  feeRao: bigint;
}

export interface DevFaucetDrip {
  address: string;
  /** 0 when the account already held a drip's worth. */
  creditedRao: bigint;
  freeRao: bigint;
  block: number;
}
