// The miner's figures, formatted once: the Mine cards, the chart legends and the tables all format
// through here, so a number and its unit never differ between two places on screen.
import { windowLabel, type MinerStats, type ModelTargets } from '../../../../shared/miner.ts';
import { fmt } from '../../../../shared/figure-units.ts';

/** TTFT in seconds everywhere (a 0.4 s value beside a 100 s gate); TPOT in ms; throughput in tok/s: shared/figure-units.ts. */
export { fmt };

export interface Figure {
  id: 'acceptance' | 'ttft' | 'tpot' | 'throughput';
  /** With its statistic and window: "TTFT p99, last 5 min". */
  label: string;
  value: string;
  unit: string;
  gate: string | null;
}

export function minerFigures(s: MinerStats, t: ModelTargets): Figure[] {
  const w = windowLabel(s.windowMs);
  return [
    { id: 'acceptance', label: `Acceptance, ${w}`, value: fmt.pct(s.acceptanceRate), unit: '%', gate: `gate ≥ ${fmt.pct(t.acceptance)} %` },
    { id: 'ttft', label: `TTFT p99, ${w}`, value: fmt.ttftS(s.ttftMs.p99), unit: 's', gate: `gate ${fmt.ttftS(t.ttftP99Ms)} s` },
    { id: 'tpot', label: `TPOT p99, ${w}`, value: fmt.tpotMs(s.tpotMs.p99), unit: 'ms', gate: `gate ${fmt.tpotMs(t.tpotP99Ms)} ms` },
    { id: 'throughput', label: `Throughput, ${w}`, value: fmt.tps(s.tokensPerSecond), unit: 'tok/s', gate: null },
  ];
}
