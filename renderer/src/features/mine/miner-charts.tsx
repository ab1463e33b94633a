import { windowLabel, type MinerSnapshot } from '../../../../shared/miner.ts';
import { minerSeriesValue, seriesKey, toUnit, type MinerSeriesName } from '../../../../shared/series.ts';
import { UplotChart } from '../charts/uplot-chart.tsx';
import { withHistory, type SeriesHistory } from '../charts/series-history.ts';
import type { Point } from '../charts/align.ts';
import { fmt } from './figures.ts';

export const CHART_WINDOWS = [
  { ms: 15 * 60_000, label: '15 min' },
  { ms: 60 * 60_000, label: '1 h' },
  { ms: 6 * 3_600_000, label: '6 h' },
  { ms: 24 * 3_600_000, label: '24 h' },
] as const;

export function WindowPicker({ value, onChange }: { value: number; onChange: (ms: number) => void }) {
  return (
    <div className="row" role="group" aria-label="Chart window">
      {CHART_WINDOWS.map((w) => (
        <button key={w.ms} className={`btn small-btn ${w.ms === value ? 'primary' : ''}`} aria-pressed={w.ms === value} onClick={() => onChange(w.ms)}>
          {w.label}
        </button>
      ))}
    </div>
  );
}

/**
 * The miner's own figures over time. Each stored point is the same statistic as the card (trailing
 * window, see STATS_WINDOW_MS), and the newest point is the card's value itself, so the legend and
 * the card always read the same number.
 */
export function MinerCharts({ m, worker, windowMs, history }: { m: MinerSnapshot; worker: number; windowMs: number; history: SeriesHistory }) {
  const s = m.stats;
  const now = Date.now();
  const w = windowLabel(s.windowMs);
  // The newest point is the card's figure in the stored series' unit (shared/series.ts).
  const series = (key: MinerSeriesName): Point[] => withHistory(history, seriesKey.miner(worker, key), m.phase === 'stopped' ? [] : [{ at: now, v: minerSeriesValue[key](s) }]);
  const note = `Each point: the statistic over the ${w} before it (stored every 15 s); the newest is the card's value.`;
  return (
    <div className="grid charts" data-testid="miner-charts">
      <UplotChart title={`Throughput (${w} average)`} unit="tok/s" windowMs={windowMs} now={now} series={[{ label: 'this miner', points: series('tps') }]} format={(v) => fmt.tps(v)} note={note} />
      <UplotChart
        title={`Acceptance (${w})`}
        unit="%"
        range={[0, 100]}
        windowMs={windowMs}
        now={now}
        series={[{ label: 'this miner', points: series('accept') }]}
        gate={{ value: toUnit.percent(m.targets.acceptance), label: `gate ${fmt.pct(m.targets.acceptance)} %` }}
        format={(v) => v.toFixed(1)}
      />
      <UplotChart
        title={`TTFT p99 (${w}), log scale`}
        unit="s"
        log
        windowMs={windowMs}
        now={now}
        series={[{ label: 'this miner', points: series('ttft') }]}
        gate={{ value: toUnit.seconds(m.targets.ttftP99Ms), label: `gate ${fmt.ttftS(m.targets.ttftP99Ms)} s` }}
        format={fmt.secs}
      />
      <UplotChart
        title={`TPOT p99 (${w}), log scale`}
        unit="ms"
        log
        windowMs={windowMs}
        now={now}
        series={[{ label: 'this miner', points: series('tpot') }]}
        gate={{ value: m.targets.tpotP99Ms, label: `gate ${fmt.tpotMs(m.targets.tpotP99Ms)} ms` }}
        format={(v) => fmt.tpotMs(v)}
      />
    </div>
  );
}
