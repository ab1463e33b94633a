// The headless validator: the service, its SQLite history and a log line per tick and per submission
// on stdout, until asked to stop. The CLI supplies the runtime (data-dir lock, logs, database, a
// handle that keeps the process alive), the chain (lazily imported @polkadot/api client) and the
// hotkey signer, so this file stays testable with doubles. A chain or provider outage fails one tick,
// logged with its reason; the loop looks again on the next poll and never exits for it.
import type { TickOutcome } from '../../../shared/validator.ts';
import type { ChainPort, KeySigner } from '../chain/ports.ts';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import type { LogHub } from '../lib/logger.ts';
import type { Database } from '../store/database.ts';
import { BLOCK_S } from './constants.ts';
import type { DaemonConfig } from './daemon-config.ts';
import { SqliteValidatorHistory } from './history.ts';
import type { FetchFn } from './payload-fetch.ts';
import { ValidatorService } from './validator-service.ts';

/** Outcomes that mean an outage (chain, provider or the tick itself), not a decision. */
const FAILING = new Set<TickOutcome>(['fetch-failed', 'chain-failed', 'submit-failed', 'error']);

export interface DaemonDeps {
  openChain: () => Promise<ChainPort>;
  signer: KeySigner;
  stopSignal: Promise<string>;
  version: string;
  fetch?: FetchFn;
  /** The runtime's log hub (its redactor already knows the secrets) and database. */
  hub: LogHub;
  db: Database;
}

export async function runValidatorDaemon(cfg: DaemonConfig, deps: DaemonDeps): Promise<number> {
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
  // One line per change of health, beside the per-tick lines: "failing since" is what an operator greps for.
  let lastOk: boolean | null = null;
  svc.onDidTick((report) => {
    // Readable by a container health check running as another user: it holds only a time.
    try {
      writeFileAtomic(cfg.heartbeatFile, JSON.stringify({ ts: Date.now() / 1000 }), 0o644);
    } catch (e) {
      log.warn(`[health] heartbeat file not written: ${(e as Error).message}`);
    }
    const ok = !FAILING.has(report.tick.outcome);
    if (ok !== lastOk && lastOk !== null) log.info(ok ? '[health] ticks succeed again' : `[health] ticks are failing: ${report.tick.detail}; retrying every ${cfg.pollS} s`);
    lastOk = ok;
  });
  svc.start();
  const sig = await deps.stopSignal;
  log.info(`[validator] ${sig}: stopping`);
  await svc.dispose();
  log.info('[validator] stopped');
  return 0;
}
