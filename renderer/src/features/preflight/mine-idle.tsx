// What a stopped Mine page shows instead of an empty page: the GPUs, how the serve would run, the
// last run's summary, and the probe-wave rehearsal.
import type { MiningRunSummary } from '../../../../shared/preflight.ts';
import { useSnapshot } from '../../stores/engine-store.ts';
import { ago, gib, num } from '../common/format.ts';
import { tpotText, ttftText } from './latency.ts';
import { RehearsePanel } from './rehearse-panel.tsx';

function duration(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

function Gpus({ external }: { external: boolean }) {
  const hw = useSnapshot('hardware');
  if (hw === undefined || hw === null) return <p className="muted">Looking at the GPUs…</p>;
  const nvidia = hw.gpus.filter((g) => g.vendor === 'nvidia');
  if (nvidia.length === 0) return <p className="muted">No NVIDIA GPU on this machine{hw.nvidiaSmiError ? ` (${hw.nvidiaSmiError})` : ''}.</p>;
  const used = new Set(hw.plan?.engines.flatMap((e) => e.gpuIndices) ?? []);
  const inPlan = (i: number) =>
    external ? <span className="badge neutral">external serve</span> : used.has(i) ? <span className="badge ok">used</span> : <span className="badge neutral">left out</span>;
  // In its own scroll box, the Plan column never narrower than its tag (the "used" tag was clipped at 1280 px).
  return (
    // Focusable so a keyboard can scroll it sideways (axe: scrollable-region-focusable).
    <div className="table-scroll" tabIndex={0} role="region" aria-label="GPUs on this machine">
      <table data-testid="idle-gpus" className="idle-gpu-table">
        <thead>
          <tr>
            <th>GPU</th>
            <th className="num">VRAM used</th>
            <th className="num">Temp.</th>
            <th>Plan</th>
          </tr>
        </thead>
        <tbody>
          {nvidia.map((g) => (
            <tr key={g.uuid || g.index}>
              {/* "RTX 4090", not "NVIDIA GeForce RTX 4090": the column stays readable beside three others at 800 px. */}
              <td title={g.name} style={{ minWidth: 90 }}>
                {g.index}: {g.name.replace(/^NVIDIA\s+(GeForce\s+)?/i, '')}
              </td>
              <td className="num">
                {gib(g.memoryUsedMiB)} / {gib(g.memoryTotalMiB)}
              </td>
              <td className="num">{g.temperatureC === null ? '—' : `${g.temperatureC} °C`}</td>
              <td className="nowrap">{inPlan(g.index)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ServeState() {
  const p = useSnapshot('preflight');
  const hw = useSnapshot('hardware');
  const settings = useSnapshot('settings');
  const runtime = p?.mine.checks.find((c) => c.id === 'runtime');
  const plan = hw?.plan;
  return (
    <dl className="kv" data-testid="idle-serve">
      <dt>State</dt>
      <dd>stopped: the panel starts the serve when mining starts</dd>
      <dt>Runtime</dt>
      <dd>{runtime ? runtime.sentence : '—'}</dd>
      {settings?.mining.runtime !== 'external' && plan && (
        <>
          <dt>Plan</dt>
          <dd>{plan.engines.map((e) => `engine ${e.index}: GPU ${e.gpuIndices.join('+')} (tp${e.tp}), ${e.declaredInflight} in flight`).join('; ')}</dd>
        </>
      )}
      <dt>Declares</dt>
      <dd>
        {settings?.mining.maxInflightOverride ?? plan?.maxInflight ?? '—'} concurrent requests{settings?.mining.maxInflightOverride ? ' (your override)' : ''}
      </dd>
    </dl>
  );
}

function LastRun({ run }: { run: MiningRunSummary | null | undefined }) {
  if (run === undefined) return <p className="muted">Loading…</p>;
  if (run === null) return <p className="muted">No mining run yet on this machine.</p>;
  return (
    <dl className="kv" data-testid="last-run">
      <dt>When</dt>
      <dd>
        stopped {ago(run.stoppedAt)}, after {duration(run.stoppedAt - run.startedAt)}
      </dd>
      <dt>Ended in</dt>
      <dd>
        {run.lastPhase.replace(/-/g, ' ')}
        {run.lastDetail ? `: ${run.lastDetail}` : ''}
      </dd>
      <dt>Requests</dt>
      <dd>
        {num(run.ok)} ok · {num(run.errors)} failed · {num(run.cancelled)} cancelled ({run.workers} worker{run.workers === 1 ? '' : 's'})
      </dd>
      <dt>Acceptance</dt>
      <dd>{run.acceptanceRate === null ? '—' : `${(run.acceptanceRate * 100).toFixed(2)} %`}</dd>
      <dt>TTFT / TPOT p99</dt>
      <dd>
        {ttftText(run.ttftP99Ms)} / {tpotText(run.tpotP99Ms)}
      </dd>
      <dt>Throughput</dt>
      <dd>{run.tokensPerSecond.toFixed(1)} tok/s at the end</dd>
    </dl>
  );
}

export function MineIdle() {
  const run = useSnapshot('lastMiningRun');
  const settings = useSnapshot('settings');
  return (
    // One column below ~850 px of content (mine-idle-grid): at 800 px the GPU table gets the full width instead of
    // a half-width card where its names and memory figures wrapped and its Plan tags hugged the edge.
    <div className="grid mine-idle-grid">
      {/* The GPU table wants more than half of an 800 px window: it scrolls sideways rather than clip, and takes the
          keyboard focus so the sideways scroll works without a mouse (axe: scrollable-region-focusable). */}
      <section className="card stack" aria-label="GPUs" tabIndex={0} style={{ gap: 10, alignContent: 'start', overflowX: 'auto' }}>
        <h3 style={{ margin: 0 }}>GPUs</h3>
        <Gpus external={settings?.mining.runtime === 'external'} />
      </section>
      <section className="card stack" aria-label="Serve" style={{ gap: 10, alignContent: 'start' }}>
        <h3 style={{ margin: 0 }}>Serve</h3>
        <ServeState />
      </section>
      <section className="card stack" aria-label="Last run" style={{ gap: 10, alignContent: 'start' }}>
        <h3 style={{ margin: 0 }}>Last mining run</h3>
        <LastRun run={run} />
      </section>
      <RehearsePanel />
    </div>
  );
}
