// The two daemons' one service each: `mine` (a gateway worker over the user's serves, proving in the pool,
// its worker id kept in the data dir) and `validate` (the light validator from flags or ENGY_SN53_*).
import { hostname } from 'node:os';
import type { ChainPort, KeySigner } from '../engine/chain/ports.ts';
import { detectHardware } from '../engine/hardware/detect.ts';
import { describeError } from '../engine/lib/fs-errors.ts';
import type { FetchFn } from '../engine/lib/fetch.ts';
import type { Logger } from '../engine/lib/logger.ts';
import { helloHw } from '../engine/miner/hello-hw.ts';
import { defaultWorkerName } from '../engine/miner/identity.ts';
import { MinerService } from '../engine/miner/miner-service.ts';
import { createProofPort } from '../engine/miner/proof-adapter.ts';
import { persistentWorkerId } from '../engine/miner/worker-id-store.ts';
import type { ProofPool } from '../engine/proof/proof-pool.ts';
import { buildValidatorDaemon } from '../engine/validator/daemon.ts';
import { heartbeatVersion } from '../engine/validator/heartbeat.ts';
import type { DaemonConfig } from '../engine/validator/daemon-config.ts';
import type { ValidatorService } from '../engine/validator/validator-service.ts';
import { MinerKeyStore } from '../engine/wallet/miner-key-store.ts';
import type { Wiring } from './wiring.ts';

export const CHECKPOINT_FIX = 'point --checkpoint at the downloaded model folder (`engy-panel serve checkpoint --download` fetches it)';

export interface MineConfig {
  gatewayUrl: string;
  serveUrls: string[];
  checkpointDir: string;
  model: string;
  maxInflight: number;
  workerName?: string;
  /** Where ENGY_MINER_KEY_FILE is read. */
  env: NodeJS.ProcessEnv;
}

export interface MinerDaemon {
  miner: MinerService;
  /** Whether the worker id was kept from an earlier start (said in the start line). */
  reused: boolean;
}

export function wireMinerDaemon(w: Wiring, cfg: MineConfig, pool: ProofPool): MinerDaemon {
  w.module('miner-daemon');
  const { paths, logs, db, versions } = w.rt;
  const log = logs.logger('miner');
  const keys = new MinerKeyStore({ secretsDir: paths.secrets, env: cfg.env, redactor: logs.redactor, logger: logs.logger('keys') });
  try {
    keys.get();
  } catch (e) {
    throw new Error(`no miner key: ${describeError(e)}`);
  }
  const keyStatus = keys.status();
  if (keyStatus.storage === 'env-file' && keyStatus.warning) log.warn(`miner key: ${keyStatus.warning}`);
  const workerName = cfg.workerName ?? defaultWorkerName(hostname(), cfg.model, cfg.serveUrls);
  const id = persistentWorkerId(paths.workerIds, { workerName, model: cfg.model, maxInflight: cfg.maxInflight });
  if (id.saveError) log.warn(`the worker id could not be saved (${id.saveError}): the next start will need a new qualification`);
  const miner = w.add(
    new MinerService({
      gatewayUrl: cfg.gatewayUrl,
      serveUrls: cfg.serveUrls,
      checkpointDir: cfg.checkpointDir,
      model: cfg.model,
      maxInflight: cfg.maxInflight,
      workerName,
      workerId: id.workerId,
      minerKey: () => keys.get(),
      redactor: logs.redactor,
      hw: async () => helloHw(await detectHardware({ dataDir: paths.root, includeOtherGpus: false })),
      versions,
      proof: createProofPort(pool),
      log,
      db,
      audit: { sampleRate: 0.01, minIntervalMs: 300_000 },
    }),
  );
  return { miner, reused: id.reused };
}

/** Starts the worker and runs it until the stop signal: the exit code of `mine`. */
export async function runMinerDaemon(d: MinerDaemon, log: Logger, stopSignal: Promise<string>): Promise<number> {
  try {
    await d.miner.start();
  } catch (e) {
    log.error(`cannot start the miner: ${describeError(e, { what: 'the checkpoint folder', fix: CHECKPOINT_FIX })}`);
    return 1;
  }
  const snap = d.miner.snapshot();
  log.info(`worker ${snap.workerName} id ${snap.workerId} (${d.reused ? 'kept from the last start' : 'new'}) model_root ${snap.modelRoot ?? '?'}`);
  if (snap.legsWarning) log.warn(snap.legsWarning);
  const sig = await stopSignal;
  log.info(`${sig}: closing the legs`);
  return 0;
}

export interface ValidateConfig {
  config: DaemonConfig;
  env: NodeJS.ProcessEnv;
  /** The chain client (absent: the @polkadot/api client for config.chainUrl, imported on first use). */
  openChain?: () => Promise<ChainPort>;
  /** The signing hotkey (absent: loaded from the wallet files the config names). */
  signer?: KeySigner;
  fetch?: FetchFn;
}

export async function wireValidatorDaemon(w: Wiring, v: ValidateConfig): Promise<ValidatorService> {
  w.module('validator-daemon');
  const { logs, db, version } = w.rt;
  const cfg = v.config;
  let signer = v.signer;
  if (!signer) {
    try {
      const { loadHotkeySigner } = await import('../engine/wallet/hotkey-signer.ts');
      signer = await loadHotkeySigner({ walletPath: cfg.walletPath, wallet: cfg.wallet, hotkey: cfg.hotkey, env: v.env, redactor: logs.redactor });
    } catch (e) {
      throw new Error(`cannot load the hotkey ${cfg.wallet}/${cfg.hotkey}: ${describeError(e, { what: 'the hotkey file', fix: 'check --wallet, --hotkey and --wallet-path' })}`);
    }
  }
  const chainLog = logs.logger('chain');
  const openChain =
    v.openChain ??
    (async () => {
      const { openChainClient } = await import('../engine/chain/open-chain.ts');
      return openChainClient(cfg.chainUrl, chainLog);
    });
  const svc = buildValidatorDaemon(cfg, { openChain, signer, version: heartbeatVersion(version), hub: logs, db, ...(v.fetch ? { fetch: v.fetch } : {}) });
  w.add({ dispose: () => svc.dispose() });
  return svc;
}
