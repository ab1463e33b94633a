// The headless validator: the service, its SQLite history and a log line per tick and per submission
// on stdout, until asked to stop. compose.ts's validate profile supplies the runtime (data-dir lock, logs,
// database, a handle that keeps the process alive), the chain (lazily imported @polkadot/api client) and
// the hotkey signer, so this file stays testable with doubles. A chain or provider outage fails one tick,
// logged with its reason; the loop looks again on the next poll and never exits for it.
import type { ChainPort, KeySigner } from '../chain/ports.ts';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import type { LogHub, Logger } from '../lib/logger.ts';
import type { Database } from '../store/database.ts';
import { BLOCK_S } from './constants.ts';
import type { DaemonConfig } from './daemon-config.ts';
import { SqliteValidatorHistory } from './history.ts';
import type { FetchFn } from '../lib/fetch.ts';
import { ValidatorService } from './validator-service.ts';

// Re-exported for the daemon's importers; it lives in its own file so the panel's health lines load no validator.
export { HealthLines } from './health-lines.ts';

export interface DaemonDeps {
  openChain: () => Promise<ChainPort>;
  signer: KeySigner;
  version: string;
  fetch?: FetchFn;
  /** The runtime's log hub (its redactor already knows the secrets) and database. */
  hub: LogHub;
  db: Database;
}

/**
 * The validator service of `engy-panel validate`, not yet started, stamping the heartbeat file after
 * every tick (compose.ts's validate profile builds it, adds the health lines, and runs it).
 */
export function buildValidatorDaemon(cfg: DaemonConfig, deps: DaemonDeps): ValidatorService {
  const log = deps.hub.logger('validator');
  const history = new SqliteValidatorHistory(deps.db);
  if (cfg.pollS * 1000 >= cfg.resubmitBlocks * BLOCK_S * 1000 * 0.5) {
    log.warn(`[config] poll every ${cfg.pollS} s is coarse next to the ${cfg.resubmitBlocks}-block resubmit interval: submissions will run late`);
  }
  log.info(`[config] wallet=${cfg.wallet}/${cfg.hotkey} chain=${cfg.chainUrl} state=${cfg.statePath} data=${cfg.dataDir}`);
  const svc = new ValidatorService({
    config: { providerUrl: cfg.providerUrl, masterHotkey: cfg.masterHotkey, netuid: cfg.netuid, statePath: cfg.statePath, resubmitBlocks: cfg.resubmitBlocks },
    signer: deps.signer,
    openChain: deps.openChain,
    history,
    logger: log,
    pollMs: cfg.pollS * 1000,
    version: deps.version,
    fetch: deps.fetch,
  });
  svc.onDidTick(() => {
    // Readable by a container health check running as another user: it holds only a time.
    try {
      writeFileAtomic(cfg.heartbeatFile, JSON.stringify({ ts: Date.now() / 1000 }), 0o644);
    } catch (e) {
      log.warn(`[health] heartbeat file not written: ${(e as Error).message}`);
    }
  });
  return svc;
}

/** Runs a built validator until the stop signal, then stops it: the exit code of `validate`. */
export async function runValidatorDaemon(svc: ValidatorService, log: Logger, stopSignal: Promise<string>): Promise<number> {
  svc.start();
  const sig = await stopSignal;
  log.info(`[validator] ${sig}: stopping`);
  await svc.dispose();
  log.info('[validator] stopped');
  return 0;
}
