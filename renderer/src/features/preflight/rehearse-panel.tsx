// "Rehearse qualification": the engine sends the probe wave's shape to the local serve; this shows
// the measured p99s against the gates and the pass/fail forecast.
import { useState } from 'react';
import type { RehearsalResult } from '../../../../shared/preflight.ts';
import { engineApi } from '../../stores/engine-store.ts';
import { tpotText, ttftText } from './latency.ts';

export function RehearsePanel() {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<RehearsalResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    const r = await engineApi().invoke('mining.rehearse', null);
    if (r.ok) setResult(r.value);
    else setError(r.error.message);
    setBusy(false);
  };
  return (
    <section className="card stack" aria-label="Rehearse qualification" style={{ gap: 10, alignContent: 'start' }} data-testid="rehearsal">
      <div className="spread">
        <h3 style={{ margin: 0 }}>Rehearse qualification</h3>
        <button className="btn" onClick={() => void run()} disabled={busy} data-testid="rehearse">
          {busy ? 'Rehearsing… (up to a few minutes)' : 'Rehearse'}
        </button>
      </div>
      <p className="small muted" style={{ margin: 0 }}>
        Sends what the gateway's probes look like (24 requests at once, prompts of about 13k tokens) to your serve and measures the 99th-percentile latencies against the gates, before the rig goes
        live.
      </p>
      {error && (
        <div className="error-box" role="alert">
          {error}
        </div>
      )}
      {result && (
        <>
          <div className={`badge ${result.verdict === 'pass' ? 'ok' : 'bad'}`} data-testid="rehearsal-verdict" style={{ justifySelf: 'start' }}>
            forecast: {result.verdict}
          </div>
          <dl className="kv">
            <dt>TTFT p99</dt>
            <dd>
              {ttftText(result.ttftP99Ms)} <span className="muted">(gate {ttftText(result.gates.ttftP99Ms)})</span>
            </dd>
            <dt>TPOT p99</dt>
            <dd>
              {tpotText(result.tpotP99Ms)} <span className="muted">(gate {tpotText(result.gates.tpotP99Ms)})</span>
            </dd>
            <dt>Requests</dt>
            <dd>
              {result.completed} of {result.concurrent} finished · ~{result.promptTokens.toLocaleString('en-US')} prompt tokens, {result.maxTokens} output tokens each ·{' '}
              {(result.durationMs / 1000).toFixed(1)} s
            </dd>
          </dl>
          <p className="small" style={{ margin: 0 }} data-testid="rehearsal-forecast">
            {result.forecast}
          </p>
        </>
      )}
    </section>
  );
}
