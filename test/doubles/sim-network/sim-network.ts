// TEST DOUBLE: the whole engy network on loopback, for the demo and its test. A dev chain seeded
// with the demo hotkeys, the provider double, the gateway double with its auditor, an honest and an
// int4 ("cheaper quantisation") fake serve, an in-process cheat worker on the int4 serve, paying
// buyers, and an epoch publisher scoring what the gateway saw. No GPU, no internet, nothing real.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { RunningHeadless } from '../../../electron/headless.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import { MinerService } from '../../../electron/engine/miner/miner-service.ts';
import { createProofPort } from '../../../electron/engine/miner/proof-adapter.ts';
import { startDevChain, type RunningDevChain } from '../dev-chain/index.ts';
import { devKeys, SN53, TAO } from '../dev-chain/sn53-seed.ts';
import { CHECKPOINT_TINY, startFakeSglang, type FakeSglang } from '../fake-sglang/spawn.ts';
import { createModelAuditor } from '../gateway/audit.ts';
import { GatewayDouble } from '../gateway/gateway-double.ts';
import { startProviderDouble, type ProviderDouble, type Weights } from '../provider.ts';
import { BuyerTraffic } from './buyer-traffic.ts';
import { simulatedMarket, startPriceDouble, type PriceDouble } from '../price-source.ts';
import { CHEAT_KEY, CHEAT_WORKER, HONEST_KEY, prepareDemoDataDir, RIG_WORKER, writeDemoSettings, type DemoIdentity } from './demo-data-dir.ts';
import { scoreEpoch, type ScoredRow, type ScoreRules, type WorkerTally } from './epoch-scorer.ts';
import { peerNeurons, peerTallies, simPeers, validatorsSetWeights, PEER_MINERS, PEER_VALIDATORS } from './sim-peers.ts';
import { AppFailure, errorMessage } from '../../../shared/errors.ts';

export interface SimNetworkOptions {
  dataDir: string;
  /** Epoch length (the provider owns the timeline). Default 60 s. */
  epochMs?: number;
  /** Dev chain block time. Default 1 s. */
  blockMs?: number;
  /** Buyer request interval per active worker. Default 1.5 s. */
  trafficMs?: number;
  /** Validator poll written into the demo settings. Default 15 s. */
  pollSeconds?: number;
  log?: (line: string) => void;
  /**
   * One more validator on the subnet (//Engy//Validator, a permit and 1000 τ staked) that puts each published
   * epoch's weights on chain, beside the stake-heavy peer validators (sim-peers.ts) that always do.
   */
  peerValidator?: boolean;
}

/** The faucet's own words, shown by the panel beside its button. */
export const SIM_FAUCET_LABEL = 'Simulated network faucet: test τ on this demo chain only, worth nothing';

export interface PublishedEpoch {
  index: number;
  at: number;
  rows: ScoredRow[];
  weights: Weights;
}

export interface SimHotkeys {
  owner: string;
  rig: string;
  cheat: string;
  /** The subnet's other miners and validators (no process behind them), in uid order. */
  peerMiners: string[];
  peerValidators: string[];
}

export interface SimulatedNetwork {
  dataDir: string;
  chain: RunningDevChain;
  provider: ProviderDouble;
  price: PriceDouble;
  gateway: GatewayDouble;
  honestServe: FakeSglang;
  cheatServe: FakeSglang;
  cheat: MinerService;
  traffic: BuyerTraffic;
  hotkeys: SimHotkeys;
  identity: DemoIdentity;
  epochs: PublishedEpoch[];
  epochMs: number;
  /** Uid of a hotkey on netuid 53 of the dev chain. */
  uidOf(hotkey: string): number | undefined;
  /**
   * What provider.engy.ai does for a registered hotkey: issues a miner key the gateway admits from now on, whose
   * traffic counts for that hotkey. Throws for a hotkey not registered on netuid 53.
   */
  issueMinerKey(hotkey: string): string;
  /** The app (headless) against this network, from the settings written into dataDir; mining and validating started. */
  startApp(opts?: { port?: number; echo?: (line: string) => void }): Promise<RunningHeadless>;
  app: RunningHeadless | null;
  /** Child processes (the two fake serves). */
  childPids(): number[];
  /** Every listening port this network opened (the app's included once started). */
  ports(): number[];
  onEpoch(listener: (e: PublishedEpoch) => void): () => void;
  /**
   * Holds the network's figures still for a test that reads them: the buyers stop, and no epoch is published
   * from here on (so the peer validator sets no new weights either). The chain keeps making blocks and
   * emitting on the weights already set, so every app still answers; only the epoch results stop changing.
   * Test double only: the simulated network is never mainnet, and nothing in the app can call this.
   */
  freeze(): Promise<void>;
  /** True once freeze() was called: no epoch is published after that. */
  readonly frozen: boolean;
  stop(): Promise<void>;
}

/** The simulated network's τ quotes at its start (made up, like everything behind the SIMULATED banner; they move, see simulatedMarket). */
export const SIM_TAO_PRICES = { usd: 300, eur: 275, gbp: 235 };

const RULES: ScoreRules = { scoreRate: 1000, ttftCeilingMs: 100_000 };
/** Declared by the app's rig: 8 legs x 3, what the fake serve answers at once with room to spare. */
const RIG_INFLIGHT = 24;
const RESUBMIT_BLOCKS = 20;
/** Below the resubmit interval, as on SN53 (100 < 120). */
const WEIGHTS_RATE_LIMIT = 2;

const SERVE_FLAGS = ['--enable-return-hidden-states', '--trim-hidden-states', '--enable-metrics', '--max-running-requests', '80'];

function portOf(url: string): number {
  return Number(new URL(url).port);
}

async function healthy(serve: FakeSglang): Promise<string> {
  const url = await serve.url();
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`${url}/health_generate`)
        .then((r) => r.ok)
        .catch(() => false)
    )
      return url;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the fake serve at ${url} never became healthy`);
}

export async function startSimulatedNetwork(opts: SimNetworkOptions): Promise<SimulatedNetwork> {
  const log = opts.log ?? (() => undefined);
  const epochMs = opts.epochMs ?? 60_000;
  const cleanups: Array<() => Promise<void> | void> = [];
  const undo = async () => {
    // Reverse order, each once: a second stop() finds nothing left to close.
    for (let c = cleanups.pop(); c; c = cleanups.pop()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    const identity = await prepareDemoDataDir(opts.dataDir);
    const [keys, peers] = await Promise.all([devKeys(), simPeers()]);
    const hotkeys: SimHotkeys = { owner: keys.owner.address, rig: identity.rigHotkey, cheat: identity.cheatHotkey, peerMiners: peers.miners, peerValidators: peers.validators };
    const cold = keys.coldkey.address;
    const chain = await startDevChain({
      // A newcomer's coldkey gets one registration's burn plus 0.1 τ for fees from the panel's faucet step.
      faucet: { netuid: SN53, feeRao: TAO / 10n, label: SIM_FAUCET_LABEL },
      port: 0,
      blockMs: opts.blockMs ?? 1000,
      // Chain time is the wall clock: the validator measures the real (fast) block time, so its ETAs
      // ("next resubmit in ...") match what the demo does. Commit-reveal, which needs nominal time, is off here.
      clock: 'wall',
      startBlocks: 5,
      seed: {
        balances: { [cold]: (10n * TAO).toString() },
        subnets: [
          {
            netuid: SN53,
            tempo: 20,
            weightsRateLimit: WEIGHTS_RATE_LIMIT,
            commitRevealEnabled: false,
            burnRao: TAO.toString(),
            ownerHotkey: hotkeys.owner,
            ownerColdkey: cold,
            subnetTaoRao: (20_000n * TAO).toString(),
            subnetAlphaInRao: (1_000_000n * TAO).toString(),
            simulateEpochs: true,
            neurons: [
              { hotkey: hotkeys.owner, coldkey: cold },
              // The demo rig mines AND validates: a permit and 1000 staked.
              { hotkey: hotkeys.rig, coldkey: cold, validatorPermit: true, stakeRao: (1000n * TAO).toString() },
              { hotkey: hotkeys.cheat, coldkey: cold },
              ...peerNeurons(peers, cold),
              ...(opts.peerValidator ? [{ hotkey: keys.validator.address, coldkey: cold, validatorPermit: true, stakeRao: (1000n * TAO).toString() }] : []),
            ],
          },
        ],
      },
    });
    cleanups.push(() => chain.close());
    log(
      `dev chain ${chain.url} (netuid 53: owner uid 0, demo rig uid 1 with a validator permit, cheat uid 2, ${PEER_MINERS} other miners uids 3-${2 + PEER_MINERS}, ${PEER_VALIDATORS} validators with most of the stake uids ${3 + PEER_MINERS}-${2 + PEER_MINERS + PEER_VALIDATORS})`,
    );

    const provider = await startProviderDouble({ port: 0 });
    cleanups.push(() => provider.close());
    log(`provider double ${provider.url} (dev master ${provider.masterHotkey})`);

    // A τ price for the profit figures, in CoinGecko's shape: a simulated quote that moves (the banner says nothing
    // here is real), so the engine's 10 min reads show a figure that changes over a long demo, as the real one does.
    const price = await startPriceDouble(SIM_TAO_PRICES, simulatedMarket(Date.now()));
    cleanups.push(() => price.close());
    log(`price double ${price.url} (1 τ ≈ ${SIM_TAO_PRICES.usd} USD, moving ±5 %, simulated)`);

    const honestServe = startFakeSglang(SERVE_FLAGS);
    cleanups.push(() => honestServe.stop());
    const cheatServe = startFakeSglang([...SERVE_FLAGS, '--quantize', 'int4']);
    cleanups.push(() => cheatServe.stop());
    const [honestUrl, cheatUrl] = await Promise.all([healthy(honestServe), healthy(cheatServe)]);
    log(`fake serves: honest ${honestUrl}, int4 (the cheat's) ${cheatUrl}`);

    const gateway = new GatewayDouble({
      workers: 8,
      keys: [HONEST_KEY, CHEAT_KEY],
      judgeAfterMs: 3_000,
      probe: { waves: 1, promptWords: 20, maxTokens: 64 },
      auditor: createModelAuditor(CHECKPOINT_TINY, createProofPort()),
    });
    const gatewayUrl = await gateway.start();
    cleanups.push(() => gateway.stop());
    log(`gateway double ${gatewayUrl} (8 workers, audits every commitment)`);

    // Keys issued to newly registered hotkeys (issueMinerKey): their traffic counts for that hotkey.
    const issued = new Map<string, string>();
    const hotkeyOf = (w: { workerName: string; minerKey: string }): string | null =>
      issued.get(w.minerKey) ?? (w.workerName === RIG_WORKER ? hotkeys.rig : w.workerName === CHEAT_WORKER ? hotkeys.cheat : null);
    const traffic = new BuyerTraffic({ gateway, hotkeyOf, everyMs: opts.trafficMs ?? 1_500, maxTokens: 24 });
    traffic.start();
    cleanups.push(() => traffic.stop());

    const cheat = new MinerService({
      gatewayUrl,
      serveUrls: [cheatUrl],
      checkpointDir: CHECKPOINT_TINY,
      model: 'qwen3.6-35b-a3b',
      maxInflight: 8,
      workerName: CHEAT_WORKER,
      minerKey: () => CHEAT_KEY,
      hw: async () => ({ host: `${hostname()}-cheat`, cpus: 2, ram_gb: 8, gpu: 'simulated (int4)', gpu_count: 0, gpu_mem_gb: 0, gpus: '0x none', parallelism: 'tp' }),
      versions: { 'engy-panel': 'sim-cheat' },
      proof: createProofPort(),
      log: silentLogger,
    });
    cleanups.push(() => cheat.dispose());
    await cheat.start();

    writeDemoSettings(opts.dataDir, identity, {
      serveUrl: honestUrl,
      checkpointDir: CHECKPOINT_TINY,
      gatewayUrl,
      chainUrl: chain.url,
      providerUrl: provider.url,
      masterHotkey: provider.masterHotkey,
      pollSeconds: opts.pollSeconds ?? 15,
      resubmitBlocks: RESUBMIT_BLOCKS,
      maxInflight: RIG_INFLIGHT,
      priceUrl: price.url,
    });

    // Who puts each published epoch's weights on chain besides the app: the peer validators, and //Engy//Validator when asked.
    const weightSetters = [...peers.validators, ...(opts.peerValidator ? [keys.validator.address] : [])];
    // Epochs: the first right after the rig qualified and served a few paying requests, then on the clock.
    const epochs: PublishedEpoch[] = [];
    // Each epoch's window is the time it scored (the previous end to now), so Earnings matches its τ and
    // the tokens served to the same minutes the requests happened in, as on the live network.
    let windowStart = Date.now();
    const listeners = new Set<(e: PublishedEpoch) => void>();
    const publishEpoch = () => {
      const tallies = traffic.takeTallies();
      // A refused worker earns nothing; its probe verdicts show why in its row.
      for (const w of gateway.view()) {
        const hk = hotkeyOf(w);
        if (w.state !== 'refused' || !hk || tallies.some((t) => t.hotkey === hk)) continue;
        const v = { pass: 0, cheat: 0, unproven: 0 };
        for (const a of w.audits) v[a.verdict] += 1;
        tallies.push({ hotkey: hk, ok: 0, failed: 0, promptTokens: 0, completionTokens: 0, verdicts: v, ttftP99Ms: 0 } satisfies WorkerTally);
      }
      // The subnet's other miners (no process behind them): the rig's weight is a share among many.
      tallies.push(...peerTallies(peers, Date.now() - windowStart, epochs.length + 1));
      const { rows, weights } = scoreEpoch(tallies, RULES, hotkeys.owner);
      const index = epochs.length + 1;
      const now = Date.now();
      provider.publish(index, weights, { miners: rows, params: { score_rate: { 'qwen3.6-35b-a3b': RULES.scoreRate }, simulated: true } }, { startMs: windowStart, endMs: now });
      windowStart = now;
      validatorsSetWeights(chain.state, weightSetters, weights);
      const e: PublishedEpoch = { index, at: now, rows, weights };
      epochs.push(e);
      for (const l of listeners) l(e);
    };
    let epochTimer: ReturnType<typeof setInterval> | null = null;
    let frozen = false;
    // The first epoch once a worker that counts for a hotkey (the demo rig's, or one with an issued key) is
    // active and served a few paying requests.
    const earningHotkey = (): string | null => {
      for (const w of gateway.view()) {
        const hk = w.workerName === RIG_WORKER || issued.has(w.minerKey) ? hotkeyOf(w) : null;
        if (hk && w.state === 'active' && traffic.okSoFar(hk) >= 3) return hk;
      }
      return null;
    };
    const firstEpochWatch = setInterval(() => {
      if (frozen || earningHotkey() === null) return;
      clearInterval(firstEpochWatch);
      publishEpoch();
      epochTimer = setInterval(() => {
        if (!frozen) publishEpoch();
      }, epochMs);
    }, 250);
    cleanups.push(() => {
      clearInterval(firstEpochWatch);
      if (epochTimer) clearInterval(epochTimer);
    });

    const net: SimulatedNetwork = {
      dataDir: opts.dataDir,
      chain,
      provider,
      price,
      gateway,
      honestServe,
      cheatServe,
      cheat,
      traffic,
      hotkeys,
      identity,
      epochs,
      epochMs,
      app: null,
      uidOf: (hk) => chain.state.neuron(SN53, hk)?.uid,
      issueMinerKey(hotkey) {
        if (!chain.state.neuron(SN53, hotkey)) throw new Error(`${hotkey} is not registered on subnet ${SN53}: a miner key is issued for a registered hotkey`);
        const key = `mk-sim-${randomBytes(12).toString('hex')}`;
        issued.set(key, hotkey);
        gateway.admitKey(key);
        log(`miner key issued for ${hotkey} (the simulated provider site)`);
        return key;
      },
      async startApp(o = {}) {
        const { startHeadless } = await import('../../../electron/headless.ts');
        const app = await startHeadless({ host: '127.0.0.1', port: o.port ?? 0, dataDir: opts.dataDir, profile: 'demo', ...(o.echo ? { echo: o.echo } : {}) });
        net.app = app;
        cleanups.push(async () => {
          net.app = null;
          await app.stop();
        });
        await startValidatingWhenRegistrationKnown(app.engine.validating, log);
        // Mining waits for the serve's health before dialing: do not hold the caller on it.
        void app.engine.mining.start().catch((e: unknown) => log(`the app's mining did not start: ${errorMessage(e)}`));
        return app;
      },
      childPids: () => [honestServe.proc.pid, cheatServe.proc.pid].filter((p): p is number => p !== undefined),
      ports: () => {
        const ps = [portOf(chain.url), provider.port, portOf(gatewayUrl), portOf(honestUrl), portOf(cheatUrl), portOf(price.url)];
        if (net.app) ps.push(net.app.server.port);
        return ps;
      },
      onEpoch(l) {
        listeners.add(l);
        return () => listeners.delete(l);
      },
      async freeze() {
        frozen = true;
        clearInterval(firstEpochWatch);
        if (epochTimer) clearInterval(epochTimer);
        await traffic.stop();
      },
      get frozen() {
        return frozen;
      },
      stop: undo,
    };
    return net;
  } catch (e) {
    await undo();
    throw e;
  }
}

/**
 * Start the app's validator as a user would: a loaded machine can leave the chain's registration
 * answer pending past the pre-flight's wait ("Not checked yet"), and the user presses Start again.
 * Only the chain's blockers (registration, permit) are retried, for at most 60 s; any other refusal fails at once.
 */
async function startValidatingWhenRegistrationKnown(v: { start(): Promise<unknown> }, log: (line: string) => void): Promise<void> {
  const end = Date.now() + 60_000;
  for (;;) {
    try {
      await v.start();
      return;
    } catch (e) {
      const chainOnly = e instanceof AppFailure && e.code === 'preflight-blocked' && (e.detail ?? '').split(',').every((id) => id === 'registration' || id === 'permit');
      if (!chainOnly || Date.now() > end) throw e;
      log(`the app's validator waits for the chain's registration answer: ${errorMessage(e)}`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}
