import type { EngineSnapshot, ServeSnapshot } from '../../../../shared/serve.ts';
import { engineSeriesValue, gpuSeriesValue, seriesKey, toUnit, type EngineSeriesName, type GpuSeriesName } from '../../../../shared/series.ts';
import { UplotChart, type ChartSeries } from '../charts/uplot-chart.tsx';
import { Term } from '../common/term.tsx';
import { withHistory, type SeriesHistory } from '../charts/series-history.ts';
import { powerAxisMaxW } from './power-axis.ts';

const STATE_BADGE: Record<EngineSnapshot['status']['state'], string> = {
  stopped: 'neutral',
  starting: 'info',
  ready: 'ok',
  degraded: 'warn',
  crashed: 'bad',
  restarting: 'warn',
  stopping: 'neutral',
  failed: 'bad',
};

function statusText(e: EngineSnapshot): string {
  const s = e.status;
  switch (s.state) {
    case 'starting':
      return `starting: ${s.phase.replace(/-/g, ' ')}${s.progressPct !== null ? ` (${s.progressPct.toFixed(0)}%)` : ''}`;
    case 'restarting':
      return `restarting in ${Math.max(0, Math.round((s.nextRetryAt - Date.now()) / 1000))} s (restart ${s.restarts})`;
    case 'stopped':
      return s.exitCode === null ? 'stopped' : `stopped (exit ${s.exitCode})`;
    case 'ready':
    case 'degraded':
    case 'crashed':
    case 'stopping':
    case 'failed':
      return s.state;
  }
}

function EngineCard({ e }: { e: EngineSnapshot }) {
  const s = e.status;
  const cause = s.state === 'crashed' || s.state === 'failed' || s.state === 'restarting' || s.state === 'degraded' ? s.cause : null;
  return (
    <div className="card stack" data-testid="engine-card">
      <div className="spread">
        <b>
          Engine {e.index} · {e.runtime}
          {e.gpuIndices.length > 0 ? ` · GPU ${e.gpuIndices.join('+')}` : ''}
          {e.gpuIndices.length === 2 && (
            <>
              {' · '}
              <Term k="tp2">tp2</Term>
            </>
          )}
        </b>
        <span className={`badge ${STATE_BADGE[s.state]}`} data-testid="engine-state">
          {statusText(e)}
        </span>
      </div>
      <dl className="kv">
        <dt>Serve</dt>
        <dd className="mono">{e.url}</dd>
        <dt>sglang</dt>
        <dd>{e.sglangVersion ?? 'version unknown'}</dd>
        <dt>Hidden-state trim</dt>
        <dd>
          {e.trim.state === 'armed' || e.trim.state === 'not-armed'
            ? `${e.trim.state === 'armed' ? 'on' : 'off'}: ${e.trim.detail}`
            : e.trim.state === 'unknown'
              ? 'unknown (external serve)'
              : e.trim.state}
        </dd>
        <dt>Restarts</dt>
        <dd>{s.restarts}</dd>
        {s.pid !== null && (
          <>
            <dt>PID</dt>
            <dd>{s.pid}</dd>
          </>
        )}
      </dl>
      {cause && (
        <div className="error-box">
          <b>{cause.cause}</b>
          <div>Fix: {cause.fix}</div>
          {cause.evidence && <div className="mono small">{cause.evidence}</div>}
        </div>
      )}
      {e.command && (
        <details>
          <summary className="small">The exact command (copyable)</summary>
          <div className="cmd">{e.command}</div>
        </details>
      )}
    </div>
  );
}

/** Charts of the serve (as sglang reports it) and of every GPU, over the window the page chose. */
export function EnginesPanel({ serve, ttftTargetMs, windowMs, history }: { serve: ServeSnapshot; ttftTargetMs: number | null; windowMs: number; history?: SeriesHistory }) {
  // Keys and units from shared/series.ts: the live points are in the stored series' unit.
  const engineSeries = (key: EngineSeriesName): ChartSeries[] =>
    serve.engines.map((e) => ({
      label: `engine ${e.index}`,
      points: withHistory(
        history,
        seriesKey.engine(e.index, key),
        e.metrics.map((p) => ({ at: p.at, v: engineSeriesValue[key](p) })),
      ),
    }));
  const gpuSeries = (key: GpuSeriesName): ChartSeries[] =>
    serve.gpus.map((g) => ({
      label: `GPU ${g.index}`,
      color: g.index,
      points: withHistory(
        history,
        seriesKey.gpu(g.index, key),
        g.points.map((p) => ({ at: p.at, v: gpuSeriesValue[key](p) })),
      ),
    }));
  const totalGiB = Math.max(0, ...serve.gpus.flatMap((g) => g.points.map((p) => toUnit.gib(p.memoryTotalMiB ?? 0))));
  const limits = serve.gpus.map((g) => [...g.points].reverse().find((p) => p.powerLimitW != null)?.powerLimitW ?? null);
  const maxLimit = Math.max(0, ...limits.map((l) => l ?? 0));
  const powerSeries: ChartSeries[] = serve.gpus.flatMap((g, i) => [
    {
      label: `GPU ${g.index} draw`,
      color: g.index,
      points: withHistory(
        history,
        seriesKey.gpu(g.index, 'power'),
        g.points.map((p) => ({ at: p.at, v: gpuSeriesValue.power(p) })),
      ),
    },
    ...(limits[i] != null ? [{ label: `GPU ${g.index} limit`, color: g.index, dash: true, points: g.points.map((p) => ({ at: p.at, v: p.powerLimitW ?? null })) }] : []),
  ]);
  const gateS = ttftTargetMs ? toUnit.seconds(ttftTargetMs) : null;
  return (
    <section className="stack" aria-label="Engines">
      <h2>Engines</h2>
      <div className="grid cols-2">
        {serve.engines.map((e) => (
          <EngineCard key={e.index} e={e} />
        ))}
      </div>
      <p className="small muted">The serve charts plot what sglang itself reports on /metrics; the cards above the engines are computed from the requests this miner answered.</p>
      <div className="grid charts">
        <UplotChart title="Generation throughput (serve)" unit="tok/s" windowMs={windowMs} series={engineSeries('tps')} />
        <UplotChart title="Requests running (serve)" unit="req" counts windowMs={windowMs} series={engineSeries('running')} format={(v) => (Number.isInteger(v) ? v.toFixed(0) : v.toFixed(1))} />
        <UplotChart
          title="TTFT p99 (serve), log scale"
          unit="s"
          log
          windowMs={windowMs}
          series={engineSeries('ttft')}
          format={secondsFormat}
          {...(gateS ? { gate: { value: gateS, label: `gate ${secondsFormat(gateS)} s` } } : {})}
        />
        <UplotChart title="Inter-token latency p99 (serve), log scale" unit="s" log windowMs={windowMs} series={engineSeries('itl')} format={secondsFormat} />
      </div>
      {serve.gpus.length > 0 && (
        <>
          <h2>GPUs</h2>
          <div className="grid charts">
            <UplotChart title="GPU utilisation" unit="%" range={[0, 100]} windowMs={windowMs} series={gpuSeries('util')} format={(v) => v.toFixed(0)} />
            <UplotChart
              title="GPU memory used"
              unit="GiB"
              range={[0, totalGiB > 0 ? Math.ceil(totalGiB) : 1]}
              windowMs={windowMs}
              series={gpuSeries('mem')}
              format={(v) => v.toFixed(1)}
              note={totalGiB > 0 ? `Scale: 0 to the card's ${totalGiB.toFixed(1)} GiB.` : undefined}
            />
            <UplotChart title="GPU temperature" unit="°C" range={[0, 100]} windowMs={windowMs} series={gpuSeries('temp')} format={(v) => v.toFixed(0)} />
            <UplotChart
              title="GPU power vs limit"
              unit="W"
              range={[0, powerAxisMaxW(maxLimit)]}
              windowMs={windowMs}
              series={powerSeries}
              format={(v) => v.toFixed(0)}
              note="Dashed: the card's power limit."
            />
          </div>
        </>
      )}
      {serve.gpuError && <p className="small muted">GPU charts: {serve.gpuError}</p>}
    </section>
  );
}

const secondsFormat = (v: number) => (v >= 10 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v >= 0.1 ? v.toFixed(2) : v.toFixed(3));
