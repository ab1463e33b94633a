import type { LiveRehearsal } from '../../../../shared/serve.ts';
import { tpotText, ttftText } from '../preflight/latency.ts';
import { duration } from '../common/format.ts';

/** Start's rehearsal: the serve is up, the probe wave's shape is measured against it, then the rig goes live. */
export function LiveRehearsalCard({ r, now }: { r: LiveRehearsal; now: number }) {
  return (
    <section className="card stack" aria-label="Rehearsal before going live" data-testid="live-rehearsal">
      <h2>Rehearsal before going live</h2>
      {r.state === 'running' && <p role="status">Measuring the probe wave against your serve ({duration(now - r.startedAt)} so far, up to a few minutes); the miner dials the gateway when it ends.</p>}
      {r.state === 'skipped' && <p className="muted">Skipped at Start: the rig went live without measuring the probe wave first.</p>}
      {r.state === 'failed' && <div className="error-box">The rehearsal could not run ({r.error}); the rig went live without it.</div>}
      {r.state === 'done' && r.result && (
        <>
          <div className={`badge ${r.result.verdict === 'pass' ? 'ok' : 'bad'}`} style={{ justifySelf: 'start' }} data-testid="live-rehearsal-verdict">
            forecast: {r.result.verdict}
          </div>
          <p className="small" style={{ margin: 0 }}>
            TTFT p99 {ttftText(r.result.ttftP99Ms)} (gate {ttftText(r.result.gates.ttftP99Ms)}) · TPOT p99 {tpotText(r.result.tpotP99Ms)} (gate {tpotText(r.result.gates.tpotP99Ms)}) ·{' '}
            {r.result.completed} of {r.result.concurrent} requests at once, ~{r.result.promptTokens.toLocaleString('en-US')} prompt tokens each · {(r.result.durationMs / 1000).toFixed(1)} s
          </p>
          <p className="small" style={{ margin: 0 }}>
            {r.result.forecast}
          </p>
        </>
      )}
    </section>
  );
}
