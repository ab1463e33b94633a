// The validator's health lines: what an operator greps for when the provider or the chain stops
// answering and answers again. Its own file, so the panel wires them without loading the validator.
import type { Logger } from '../lib/logger.ts';
import type { TickReport } from './tick.ts';

/** Logs the provider's and the chain's reachability when it changes, not on every tick. */
export class HealthLines {
  private provider: boolean | null = null;
  private chain: boolean | null = null;
  private readonly log: Logger;
  private readonly pollSeconds: number | (() => number);
  constructor(log: Logger, pollS: number | (() => number)) {
    this.log = log;
    this.pollSeconds = pollS;
  }

  private get pollS(): number {
    return typeof this.pollSeconds === 'number' ? this.pollSeconds : this.pollSeconds();
  }

  observe(report: Pick<TickReport, 'provider' | 'chain' | 'state'>): void {
    const p = report.provider.ok;
    // A tick that failed before asking the provider (ok false, no error) says nothing about it.
    const asked = p || report.provider.error !== null;
    if (asked && p !== this.provider) {
      if (!p) {
        const fallback = report.state.cachedWeights ? 'the cached vector is resubmitted on its cadence meanwhile' : 'nothing to submit meanwhile';
        this.log.warn(`[health] the provider is unreachable: ${report.provider.error ?? 'no answer'}; ${fallback}; asking again every ${this.pollS} s`);
      } else if (this.provider === false) this.log.info('[health] the provider answers again');
      this.provider = p;
    }
    // The chain is only contacted when a submission is due: an untouched chain says nothing new.
    if (!report.chain.contacted) return;
    const c = report.chain.ok;
    if (c !== this.chain) {
      if (!c) this.log.warn(`[health] the chain is unreachable: ${report.chain.error ?? 'no answer'}; trying again every ${this.pollS} s`);
      else if (this.chain === false) this.log.info('[health] the chain answers again');
      this.chain = c;
    }
  }
}
