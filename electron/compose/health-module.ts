// Health lines for every profile (the log file and the Logs page; the terminal too for a shell that prints):
// one line when a miner worker's state changes, and when the validator's provider or chain stops answering
// and answers again (what an operator greps for).
import type { MinerSnapshot } from '../../shared/miner.ts';
import type { Disposable } from '../engine/lib/disposable.ts';
import { MinerStateLines } from '../engine/miner/miner-state-lines.ts';
import { HealthLines } from '../engine/validator/health-lines.ts';
import type { TickReport } from '../engine/validator/tick.ts';
import type { Wiring } from './wiring.ts';

export interface HealthSources {
  miners?: (l: (miners: readonly MinerSnapshot[]) => void) => Disposable;
  ticks?: { onDidTick: (l: (r: TickReport) => void) => Disposable; pollS: () => number };
}

export function wireHealthLines(w: Wiring, s: HealthSources): void {
  w.module('health-lines');
  const { logs } = w.rt;
  if (s.miners) {
    const lines = new MinerStateLines(logs.logger('miner'));
    w.add(s.miners((m) => lines.observe(m)));
  }
  if (s.ticks) {
    const health = new HealthLines(logs.logger('validator'), s.ticks.pollS);
    w.add(s.ticks.onDidTick((r) => health.observe(r)));
  }
}
