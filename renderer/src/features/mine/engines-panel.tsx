import type { EngineSnapshot, ServeSnapshot } from '../../../../shared/serve.ts';
import { LineChart } from '../charts/line-chart.tsx';

const STATE_BADGE: Record<EngineSnapshot['status']['state'], string> = {
  stopped: 'neutral', starting: 'info', ready: 'ok', degraded: 'warn', crashed: 'bad', restarting: 'warn', stopping: 'neutral', failed: 'bad',
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
          {e.trim.state === 'armed' || e.trim.state === 'not-armed' ? `${e.trim.state === 'armed' ? 'on' : 'off'}: ${e.trim.detail}` : e.trim.state === 'unknown' ? 'unknown (external serve)' : e.trim.state}
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

const PALETTE = ['#34d399', '#60a5fa', '#f472b6', '#fbbf24', '#a78bfa', '#f87171', '#2dd4bf', '#fb923c'];

export function EnginesPanel({ serve, ttftTargetMs }: { serve: ServeSnapshot; ttftTargetMs: number | null }) {
  const engineSeries = (pick: (p: EngineSnapshot['metrics'][number]) => number | null) =>
    serve.engines.map((e, i) => ({ label: `engine ${e.index}`, color: PALETTE[i % PALETTE.length]!, points: e.metrics.map((p) => ({ at: p.at, v: pick(p) })) }));
  const gpuSeries = (pick: (p: ServeSnapshot['gpus'][number]['points'][number]) => number | null) =>
    serve.gpus.map((g, i) => ({ label: `GPU ${g.index}`, color: PALETTE[i % PALETTE.length]!, points: g.points.map((p) => ({ at: p.at, v: pick(p) })) }));
  return (
    <section className="stack" aria-label="Engines">
      <h3>Engines</h3>
      <div className="grid cols-2">
        {serve.engines.map((e) => (
          <EngineCard key={e.index} e={e} />
        ))}
      </div>
      <div className="grid cols-2">
        <LineChart title="Throughput" unit="tok/s" series={engineSeries((p) => p.genTokensPerS)} />
        <LineChart title="Requests running" unit="req" series={engineSeries((p) => p.runningReqs)} format={(v) => v.toFixed(0)} />
        <LineChart
          title="TTFT p99 (serve)"
          unit="s"
          series={engineSeries((p) => p.ttftP99S)}
          {...(ttftTargetMs ? { target: { value: ttftTargetMs / 1000, label: `gate ${ttftTargetMs / 1000} s` } } : {})}
        />
        <LineChart title="Inter-token latency p99" unit="s" series={engineSeries((p) => p.itlP99S)} format={(v) => v.toFixed(3)} />
      </div>
      {serve.gpus.length > 0 && (
        <>
          <h3>GPUs</h3>
          <div className="grid cols-2">
            <LineChart title="GPU utilisation" unit="%" series={gpuSeries((p) => p.utilizationPct)} format={(v) => v.toFixed(0)} />
            <LineChart title="GPU memory used" unit="GiB" series={gpuSeries((p) => (p.memoryUsedMiB === null ? null : p.memoryUsedMiB / 1024))} />
            <LineChart title="GPU temperature" unit="°C" series={gpuSeries((p) => p.temperatureC)} format={(v) => v.toFixed(0)} />
            <LineChart title="GPU power" unit="W" series={gpuSeries((p) => p.powerDrawW)} format={(v) => v.toFixed(0)} />
          </div>
        </>
      )}
    </section>
  );
}
