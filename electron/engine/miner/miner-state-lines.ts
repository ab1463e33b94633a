// One log line per change of a miner worker's state, in every profile's log (`mine`, headless and demo print it too).
// A retry countdown ("retrying in 4 s") is the same state, already logged once per attempt by the service.
import type { MinerSnapshot } from '../../../shared/miner.ts';
import type { Logger } from '../lib/logger.ts';

export class MinerStateLines {
  private readonly last = new Map<string, string>();
  private readonly log: Logger;

  constructor(log: Logger) {
    this.log = log;
  }

  /** Every worker of the run; a lone worker's lines carry no name (as `mine` always printed them). */
  observe(miners: readonly Pick<MinerSnapshot, 'phase' | 'detail' | 'workerName'>[]): void {
    if (miners.length === 0) this.last.clear(); // a stopped run: the next one says its states afresh
    for (const [i, m] of miners.entries()) {
      const who = m.workerName ?? `worker ${i}`;
      const line = `${m.phase}: ${m.detail}`;
      const key = line.replace(/;? ?retrying in \d+ s/, '');
      if (this.last.get(who) !== key) this.log.info(miners.length > 1 ? `state [${who}] ${line}` : `state ${line}`);
      this.last.set(who, key);
    }
  }
}
