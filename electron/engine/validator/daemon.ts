// The headless validator: the service, its SQLite history and a log line per tick and per submission
// on stdout, until asked to stop. The CLI supplies the chain (lazily imported @polkadot/api client)
// and the hotkey signer, so this file stays testable with doubles.
import type { ChainPort, KeySigner } from '../chain/ports.ts';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import { LogHub } from '../lib/logger.ts';
import { dataPaths } from '../lib/paths.ts';
import { Database } from '../store/database.ts';
import { BLOCK_S } from './constants.ts';
import type { DaemonConfig } from './daemon-config.ts';
import { SqliteValidatorHistory } from './history.ts';
import type { FetchFn } from './payload-fetch.ts';
import { ValidatorService } from './validator-service.ts';

export interface DaemonDeps {
  openChain: () => Promise<ChainPort>;
  signer: KeySigner;
  out: (line: string) => void;
  stopSignal: Promise<string>;
  version: string;
  fetch?: FetchFn;
  /** Lets the caller register secrets with the log redactor before anything is logged. */
  hub?: LogHub;
}

export async function runValidatorDaemon(cfg: DaemonConfig, deps: DaemonDeps): Promise<number> {
  const paths = dataPaths(cfg.dataDir);
  const hub = deps.hub ?? new LogHub({ dir: paths.logs, echo: (l) => deps.out(`${l}\n`) });
  const log = hub.logger('validator');
  const db = new Database(paths.database);
  try {
    const history = new SqliteValidatorHistory(db);
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
      try {
        writeFileAtomic(cfg.heartbeatFile, JSON.stringify({ ts: Date.now() / 1000 }));
      } catch (e) {
        log.warn(`[health] heartbeat file not written: ${(e as Error).message}`);
      }
    });
    // The service's timers are unref'd (they must never hold an app open); a daemon is the one place that should be held.
    const keepAlive = setInterval(() => {}, 1 << 30);
    svc.start();
    const sig = await deps.stopSignal;
    clearInterval(keepAlive);
    log.info(`[validator] ${sig}: stopping`);
    await svc.dispose();
    log.info('[validator] stopped');
    return 0;
  } finally {
    hub.flush();
    db.close();
  }
}
