// ChainPort on @polkadot/api 16.5: one websocket to a subtensor node, reads through batched storage queries,
// writes signed by a KeySigner and followed to inclusion. All keys and types come from the node's metadata.
import type { ApiPromise, WsProvider } from '@polkadot/api';
import type { SubmittableExtrinsic } from '@polkadot/api/types';
import type { HexString } from '@polkadot/util/types';
import { AppFailure, errorMessage } from '../../../shared/errors.ts';
import { toDisposable, type Disposable } from '../lib/disposable.ts';
import { Emitter } from '../lib/emitter.ts';
import { silentLogger, type Logger } from '../lib/logger.ts';
import { LinkOutage, type LinkOutageLine } from '../lib/link-outage.ts';
import { MODULE_ERROR_TEXT } from './chain-errors.ts';
import { account, big, bool, boolVec, num, numVec } from './codec-values.ts';
import { earningsMath, effectiveActivityCutoff } from './derived.ts';
import type {
  ChainPort,
  CommitRevealFacts,
  DevFaucetDrip,
  DevFaucetOffer,
  MinerPoolFacts,
  TimelockedCommit,
  EarningsFacts,
  KeySigner,
  MetagraphFacts,
  NeuronFacts,
  SubmitOutcome,
  SubnetFacts,
} from './ports.ts';
import { FAUCET_DRIP_METHOD, FAUCET_INFO_METHOD, readFaucetDrip, readFaucetOffer } from './dev-faucet.ts';
import { beaconOf, commitRevealRefusal } from './commit-reveal-codec.ts';
import { connectOnce, errorText } from './connect-api.ts';
import { readNextEpochBlock, readSubnet, subtensorModule, type SubnetRead, type SubtensorQuery, type SubtensorTx } from './subnet-reads.ts';
import { submitAndWait } from './submit-extrinsic.ts';
import { describeNetworkError } from '../lib/network-words.ts';

export interface ChainClientOptions {
  /** One URL, or several to rotate through on reconnect. */
  endpoint: string | string[];
  /** Give up the first connection after this long. Default 15 s. */
  connectTimeoutMs?: number;
  /** Delay between reconnect attempts after a drop. Default 2.5 s (the provider's own default). */
  reconnectMs?: number;
  /** How long to wait for inclusion of a transaction. Default 120 s (10 blocks). */
  submitTimeoutMs?: number;
  /** Transaction mortality in blocks. Default 128, as the bittensor SDK. */
  era?: number;
  /**
   * Metadata saved from an earlier connection (see metadataCacheEntry): skips the ~340 KB download when the
   * genesis and spec version still match; a runtime upgrade simply downloads the new one.
   */
  metadataCache?: Record<string, HexString>;
  logger?: Logger;
}

export type ChainConnectionEvent = { state: 'connected'; endpoint: string } | { state: 'disconnected'; endpoint: string };

/** Blocks between the two timestamps of the block-time measurement. */
const BLOCK_TIME_SPAN = 100;

export class PolkadotChainClient implements ChainPort {
  readonly api: ApiPromise;
  private readonly provider: WsProvider;
  private readonly opts: Required<Omit<ChainClientOptions, 'endpoint' | 'logger' | 'metadataCache'>>;
  private readonly log: Logger;
  private readonly statusEmitter = new Emitter<ChainConnectionEvent>();
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Fires once when the connection drops and once when it is back (the provider's failed retries in between are one outage). */
  readonly onConnection = this.statusEmitter.event;

  private constructor(api: ApiPromise, provider: WsProvider, opts: ChainClientOptions) {
    this.api = api;
    this.provider = provider;
    this.opts = {
      connectTimeoutMs: opts.connectTimeoutMs ?? 15_000,
      reconnectMs: opts.reconnectMs ?? 2_500,
      submitTimeoutMs: opts.submitTimeoutMs ?? 120_000,
      era: opts.era ?? 128,
    };
    this.log = opts.logger ?? silentLogger;
    // Each failed reconnect attempt is another 'disconnected': one outage, one warning, one line when it is back.
    const outage = new LinkOutage('chain connection');
    const say = (l: LinkOutageLine | null) => {
      if (l) this.log[l.level](`${l.text} (${this.endpoint})`);
    };
    api.on('disconnected', () => {
      const first = !outage.down;
      say(outage.dropped(Date.now()));
      if (first) this.statusEmitter.fire({ state: 'disconnected', endpoint: this.endpoint });
    });
    api.on('connected', () => {
      const back = outage.down;
      say(outage.connected(Date.now()));
      if (back) this.statusEmitter.fire({ state: 'connected', endpoint: this.endpoint });
    });
  }

  /**
   * Connects and loads the runtime metadata, or throws AppFailure('chain-unreachable'). With several endpoints
   * each gets its own timeout, in order; the first that answers is used, and the rest stay as reconnect fallbacks.
   */
  static async connect(opts: ChainClientOptions): Promise<PolkadotChainClient> {
    const endpoints = Array.isArray(opts.endpoint) ? opts.endpoint : [opts.endpoint];
    if (endpoints.length === 0) throw new RangeError('PolkadotChainClient.connect needs at least one endpoint');
    const failures: string[] = [];
    const causes: string[] = [];
    for (let i = 0; i < endpoints.length; i++) {
      const rotated = [...endpoints.slice(i), ...endpoints.slice(0, i)];
      try {
        const { api, provider } = await connectOnce(rotated, opts);
        return new PolkadotChainClient(api, provider, opts);
      } catch (e) {
        // In words (never "getaddrinfo ENOTFOUND"); the detail keeps the causes alone for sentences that name the URL.
        const cause = describeNetworkError(e instanceof Error ? e : new Error(errorText(e)));
        failures.push(`${rotated[0]}: ${cause}`);
        causes.push(endpoints.length > 1 ? `${rotated[0]}: ${cause}` : cause);
      }
    }
    throw new AppFailure(
      'chain-unreachable',
      `Could not reach the chain (${failures.join('; ')}). Check the internet connection, or pick another endpoint: finney, test network, a local node or a custom URL.`,
      causes.join('; '),
    );
  }

  /** The URL in use (it rotates through the list on reconnect). */
  get endpoint(): string {
    return this.provider.endpoint;
  }

  /** The runtime metadata of this chain, keyed as ApiPromise expects it, for the next connect's metadataCache. */
  metadataCacheEntry(): { key: string; hex: HexString } {
    return { key: `${this.api.genesisHash.toHex()}-${this.api.runtimeVersion.specVersion.toString()}`, hex: this.api.runtimeMetadata.toHex() };
  }

  get isConnected(): boolean {
    return this.api.isConnected;
  }

  async blockNumber(): Promise<number> {
    return this.read(async () => (await this.api.rpc.chain.getHeader()).number.toNumber());
  }

  /**
   * The chain's block time, measured: Timestamp.Now at the best block and BLOCK_TIME_SPAN blocks
   * before, divided by the blocks between. Null when the chain is too young or keeps no timestamps.
   */
  async blockTimeMs(): Promise<number | null> {
    return this.read(async () => {
      const head = (await this.api.rpc.chain.getHeader()).number.toNumber();
      const span = Math.min(BLOCK_TIME_SPAN, head - 1);
      if (span < 1 || !this.api.query.timestamp?.now) return null;
      const [h1, h0] = await Promise.all([this.api.rpc.chain.getBlockHash(head), this.api.rpc.chain.getBlockHash(head - span)]);
      const [t1, t0] = await Promise.all([this.api.query.timestamp.now.at(h1), this.api.query.timestamp.now.at(h0)]);
      const ms = (Number(t1.toString()) - Number(t0.toString())) / span;
      return Number.isFinite(ms) && ms > 0 ? ms : null;
    });
  }

  /** Calls `listener` with each new best block number (re-subscribed by the provider after a reconnect). */
  async subscribeNewBlocks(listener: (block: number) => void): Promise<Disposable> {
    const unsub = await this.read(() => this.api.rpc.chain.subscribeNewHeads((h) => listener(h.number.toNumber())));
    return toDisposable(() => unsub());
  }

  async subnetFacts(netuid: number): Promise<SubnetFacts> {
    return this.read(async () => {
      const q = this.module('query');
      const [header, values] = await Promise.all([
        this.api.rpc.chain.getHeader(),
        this.api.queryMulti([
          [q('networksAdded'), netuid],
          [q('tempo'), netuid],
          [q('weightsSetRateLimit'), netuid],
          [q('activityCutoffFactorMilli'), netuid],
          [q('commitRevealWeightsEnabled'), netuid],
          [q('weightsVersionKey'), netuid],
          [q('subnetOwnerHotkey'), netuid],
          [q('burn'), netuid],
          [q('subnetworkN'), netuid],
          [q('minAllowedWeights'), netuid],
          q('stakeThreshold'),
        ]),
      ]);
      const [exists, tempo, rate, cutoffMilli, cr, versionKey, owner, burn, n, minWeights, threshold] = values;
      if (!bool(exists)) {
        throw new AppFailure('not-found', `Subnet ${netuid} does not exist on this chain. Check the netuid and the network (finney or test network).`);
      }
      const block = header.number.toNumber();
      const t = num(tempo);
      return {
        netuid,
        block,
        tempo: t,
        weightsRateLimit: num(rate),
        activityCutoff: effectiveActivityCutoff(num(cutoffMilli), t),
        commitRevealEnabled: bool(cr),
        weightsVersionKey: big(versionKey),
        ownerHotkey: account(owner),
        burnRao: big(burn),
        subnetworkN: num(n),
        nextEpochBlock: await this.nextEpochBlock(netuid, block, t),
        stakeThresholdRao: big(threshold),
        minAllowedWeights: num(minWeights),
      };
    });
  }

  async neuron(netuid: number, hotkey: string): Promise<NeuronFacts> {
    return this.read(async () => {
      const q = this.module('query');
      const [uidOpt, permits, lastUpdates, stake] = await this.api.queryMulti([
        [q('uids'), [netuid, hotkey]],
        [q('validatorPermit'), netuid],
        [q('lastUpdate'), netuid],
        [q('totalHotkeyAlpha'), [hotkey, netuid]],
      ]);
      const uidJson = uidOpt?.toJSON();
      const uid = typeof uidJson === 'number' ? uidJson : null;
      let immunityBlocksLeft: number | undefined;
      if (uid !== null) {
        const [header, [registeredAt, immunity]] = await Promise.all([
          this.api.rpc.chain.getHeader(),
          this.api.queryMulti([
            [q('blockAtRegistration'), [netuid, uid]],
            [q('immunityPeriod'), netuid],
          ]),
        ]);
        immunityBlocksLeft = Math.max(0, num(registeredAt) + num(immunity) - header.number.toNumber());
      }
      return {
        hotkey,
        uid,
        validatorPermit: uid !== null && boolVec(permits)[uid] === true,
        lastUpdate: uid === null ? null : (numVec(lastUpdates)[uid] ?? null),
        stakeRao: big(stake),
        ...(immunityBlocksLeft !== undefined ? { immunityBlocksLeft } : {}),
      };
    });
  }

  async hotkeyUids(netuid: number): Promise<Map<string, number>> {
    return this.read(async () => {
      const entries = await this.module('query')('keys').entries(netuid);
      const out = new Map<string, number>();
      for (const [key, hotkey] of entries) out.set(hotkey.toString(), num(key.args[1]));
      return out;
    });
  }

  async metagraph(netuid: number): Promise<MetagraphFacts> {
    return this.read(async () => {
      const q = this.module('query');
      const [header, uids, [permits, lastUpdates]] = await Promise.all([
        this.api.rpc.chain.getHeader(),
        this.hotkeyUids(netuid),
        this.api.queryMulti([
          [q('validatorPermit'), netuid],
          [q('lastUpdate'), netuid],
        ]),
      ]);
      const hotkeys: string[] = [];
      for (const [hk, uid] of uids) hotkeys[uid] = hk;
      return { netuid, block: header.number.toNumber(), hotkeys, validatorPermit: boolVec(permits), lastUpdate: numVec(lastUpdates) };
    });
  }

  async minerPool(netuid: number): Promise<MinerPoolFacts> {
    return this.read(async () => {
      const { block, tempo, incentive, dividends, emissionRao, subnetTaoRao, subnetAlphaInRao } = await this.subnetRead(netuid);
      // A uid with dividends is (also) a validator: its emission mixes both halves, so it is left out.
      const minerTaoPerDay = emissionRao.flatMap((e, uid) =>
        (incentive[uid] ?? 0) > 0 && (dividends[uid] ?? 0) === 0 && e > 0n ? [earningsMath(e, tempo, subnetTaoRao, subnetAlphaInRao).taoPerDayAtSpot] : [],
      );
      return { netuid, block, tempo, alphaPriceTao: earningsMath(0n, tempo, subnetTaoRao, subnetAlphaInRao).alphaPriceTao, minerTaoPerDay };
    });
  }

  async earningsFacts(netuid: number, uid: number): Promise<EarningsFacts> {
    return this.read(async () => {
      const { block, tempo, incentive, dividends, emissionRao, subnetTaoRao, subnetAlphaInRao } = await this.subnetRead(netuid);
      const own = emissionRao[uid] ?? 0n;
      return {
        netuid,
        uid,
        block,
        tempo,
        incentive: (incentive[uid] ?? 0) / 65535,
        dividends: (dividends[uid] ?? 0) / 65535,
        emissionRao: own,
        subnetTaoRao,
        subnetAlphaInRao,
        ...earningsMath(own, tempo, subnetTaoRao, subnetAlphaInRao),
      };
    });
  }

  /** Only a chain that lists the faucet's method in rpc_methods has one (the simulated network's dev chain). */
  async devFaucet(): Promise<DevFaucetOffer | null> {
    return this.read(async () => {
      const listed = (await this.provider.send<{ methods?: unknown }>('rpc_methods', [])).methods;
      if (!Array.isArray(listed) || !listed.includes(FAUCET_INFO_METHOD)) return null;
      return readFaucetOffer(await this.provider.send<unknown>(FAUCET_INFO_METHOD, []));
    });
  }

  async devFaucetDrip(address: string): Promise<DevFaucetDrip> {
    const raw = await this.read(() => this.provider.send<unknown>(FAUCET_DRIP_METHOD, [address]));
    const drip = readFaucetDrip(raw);
    if (!drip) throw new AppFailure('chain-rejected', 'The faucet answered with something that is not a payment. Try again; the chain may not offer a faucet.');
    return drip;
  }

  async freeBalance(address: string): Promise<bigint> {
    return this.read(async () => {
      const info = await this.api.query['system']?.['account']?.(address);
      const data = (info?.toJSON() as { data?: { free?: number | string } } | undefined)?.data;
      return BigInt(data?.free ?? 0);
    });
  }

  async setWeights(signer: KeySigner, netuid: number, uids: number[], weights: number[], versionKey: bigint): Promise<SubmitOutcome> {
    const bad = (message: string): SubmitOutcome => ({ ok: false, kind: 'refused', code: 'BadInput', message });
    const u16 = (v: number) => Number.isInteger(v) && v >= 0 && v <= 65535;
    if (uids.length !== weights.length) return bad('The weight vector is malformed (uids and values differ in length). This is a bug: please report it.');
    if (!uids.every(u16) || !weights.every(u16)) return bad('Weights and uids must be whole numbers from 0 to 65535. This is a bug: please report it.');
    let cr: boolean;
    try {
      const flag = await this.module('query')('commitRevealWeightsEnabled')(netuid);
      cr = bool(flag);
    } catch (e) {
      return { ok: false, kind: 'transport', code: 'disconnected', message: this.transportMessage(e) };
    }
    if (cr) {
      // The chain would refuse it anyway (CommitRevealEnabled); say so without spending a submission.
      return { ok: false, kind: 'refused', code: 'CommitRevealEnabled', message: MODULE_ERROR_TEXT['CommitRevealEnabled'] ?? '' };
    }
    return this.send(this.module('tx')('setWeights')(netuid, uids, weights, versionKey), signer);
  }

  async commitRevealFacts(netuid: number): Promise<CommitRevealFacts> {
    return this.read(async () => {
      const q = this.module('query');
      const drand = this.api.query['drand'];
      const now = this.api.query['timestamp']?.['now'];
      const [header, [enabled, version, period, tempo], stored, beacon, time] = await Promise.all([
        this.api.rpc.chain.getHeader(),
        this.api.queryMulti([[q('commitRevealWeightsEnabled'), netuid], q('commitRevealWeightsVersion'), [q('revealPeriodEpochs'), netuid], [q('tempo'), netuid]]),
        drand?.['lastStoredRound']?.() ?? Promise.resolve(undefined),
        drand?.['beaconConfig']?.() ?? Promise.resolve(undefined),
        now ? now() : Promise.resolve(undefined),
      ]);
      const block = header.number.toNumber();
      const t = num(tempo);
      const ms = time === undefined ? null : num(time);
      return {
        netuid,
        block,
        enabled: bool(enabled),
        version: num(version),
        revealPeriodEpochs: num(period),
        tempo: t,
        nextEpochBlock: await this.nextEpochBlock(netuid, block, t),
        chainTimeMs: ms !== null && ms > 0 ? ms : null,
        lastStoredRound: num(stored),
        beacon: beaconOf(beacon?.toJSON()),
        mechanismCall: this.api.tx['subtensorModule']?.['commitTimelockedMechanismWeights'] !== undefined,
      };
    });
  }

  async commitTimelockedWeights(signer: KeySigner, netuid: number, commit: Uint8Array, revealRound: number, version: number): Promise<SubmitOutcome> {
    const refusal = commitRevealRefusal(commit, revealRound, version);
    if (refusal) return refusal;
    // As hex: polkadot-js reads a Uint8Array given for Bytes as already length-prefixed.
    const bytes = `0x${Buffer.from(commit).toString('hex')}`;
    const tx = this.api.tx['subtensorModule']?.['commitTimelockedMechanismWeights']
      ? this.module('tx')('commitTimelockedMechanismWeights')(netuid, 0, bytes, revealRound, version)
      : this.module('tx')('commitTimelockedWeights')(netuid, bytes, revealRound, version);
    return this.send(tx, signer);
  }

  async timelockedCommits(netuid: number): Promise<TimelockedCommit[]> {
    return this.read(async () => {
      const entries = await this.module('query')('timelockedWeightCommits').entries(netuid);
      const out: TimelockedCommit[] = [];
      for (const [key, value] of entries) {
        const epoch = num(key.args[1]);
        for (const row of (value.toJSON() as [string, number | string, string, number | string][] | null) ?? []) {
          const [who, commitBlock, commit, revealRound] = row;
          out.push({ who: String(who), epoch, commitBlock: Number(commitBlock), commit: new Uint8Array(Buffer.from(String(commit).replace(/^0x/, ''), 'hex')), revealRound: Number(revealRound) });
        }
      }
      return out;
    });
  }

  async weightsRow(netuid: number, uid: number): Promise<[number, number][]> {
    return this.read(async () => {
      const row = (await this.module('query')('weights')(netuid, uid)).toJSON() as [number, number][] | null;
      return (row ?? []).map(([u, v]) => [Number(u), Number(v)]);
    });
  }

  burnedRegister(coldkey: KeySigner, netuid: number, hotkey: string): Promise<SubmitOutcome> {
    return this.send(this.module('tx')('burnedRegister')(netuid, hotkey), coldkey);
  }

  registerLimit(coldkey: KeySigner, netuid: number, hotkey: string, limitPriceRao: bigint): Promise<SubmitOutcome> {
    return this.send(this.module('tx')('registerLimit')(netuid, hotkey, limitPriceRao), coldkey);
  }

  async close(): Promise<void> {
    this.statusEmitter.clear();
    await this.api.disconnect();
  }

  /**
   * One transaction in flight per signer: nonces come from AccountNonceApi, and two concurrent sends from one
   * key would read the same nonce and the second would be refused as outdated.
   */
  private send(tx: SubmittableExtrinsic<'promise'>, signer: KeySigner): Promise<SubmitOutcome> {
    const previous = this.inFlight.get(signer.address) ?? Promise.resolve();
    const next = previous.then(() => this.sendNow(tx, signer));
    const tail = next.then(() => undefined);
    this.inFlight.set(signer.address, tail);
    void tail.then(() => {
      if (this.inFlight.get(signer.address) === tail) this.inFlight.delete(signer.address);
    });
    return next;
  }

  private async sendNow(tx: SubmittableExtrinsic<'promise'>, signer: KeySigner): Promise<SubmitOutcome> {
    if (!this.api.isConnected) {
      return { ok: false, kind: 'transport', code: 'disconnected', message: 'The chain connection is down; the app keeps reconnecting. Try again in a moment.' };
    }
    const outcome = await submitAndWait(this.api, tx, signer, { timeoutMs: this.opts.submitTimeoutMs, era: this.opts.era });
    if (outcome.ok) this.log.info(`${tx.method.section}.${tx.method.method} included in block ${outcome.blockNumber}`);
    else this.log.warn(`${tx.method.section}.${tx.method.method} failed (${outcome.kind} ${outcome.code}): ${outcome.message}`);
    return outcome;
  }

  private nextEpochBlock(netuid: number, block: number, tempo: number): Promise<number> {
    return readNextEpochBlock(this.api, this.log, netuid, block, tempo);
  }

  private subnetRead(netuid: number): Promise<SubnetRead> {
    return readSubnet(this.api, netuid);
  }

  private module(kind: 'query'): (name: string) => SubtensorQuery;
  private module(kind: 'tx'): (name: string) => SubtensorTx;
  private module(kind: 'query' | 'tx') {
    return kind === 'query' ? subtensorModule(this.api, 'query') : subtensorModule(this.api, 'tx');
  }

  private transportMessage(e: unknown): string {
    return `Lost the connection to the chain (${errorMessage(e)}). The app keeps reconnecting; try again in a moment.`;
  }

  private async read<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof AppFailure) throw e;
      if (!this.api.isConnected) throw new AppFailure('chain-unreachable', this.transportMessage(e));
      const raw = errorMessage(e);
      throw new AppFailure('chain-rejected', `The node answered a read with an error (${raw}). Try again; if it persists, pick another endpoint.`);
    }
  }
}
