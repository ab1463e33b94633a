import { useState } from 'react';
import type { MinerPhase, MinerSnapshot } from '../../../../shared/miner.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { ago, num } from '../common/format.ts';
import { EnginesPanel } from './engines-panel.tsx';
import { PreflightChecklist, usePreflight } from '../preflight/preflight-checklist.tsx';
import { MineIdle } from '../preflight/mine-idle.tsx';

const PHASE_BADGE: Record<MinerPhase, string> = {
  stopped: 'neutral', 'starting-serve': 'info', connecting: 'info', 'waiting-for-probe': 'info', probing: 'warn', active: 'ok', pulled: 'bad', denied: 'bad', reconnecting: 'warn', failed: 'bad',
};

const ms = (v: number | null) => (v === null ? '—' : v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`);

function Legs({ m }: { m: MinerSnapshot }) {
  return (
    <div className="row" aria-label="Gateway legs">
      {m.legs.map((l) => (
        <span key={l.index} className={`badge ${l.status === 'admitted' ? 'ok' : l.status === 'denied' ? 'bad' : l.status === 'open' ? 'info' : 'neutral'}`} title={l.denyReason ?? l.lastError ?? l.status}>
          leg {l.index}: {l.status}
          {l.inflight > 0 ? ` · ${l.inflight}` : ''}
        </span>
      ))}
    </div>
  );
}

function Stats({ m }: { m: MinerSnapshot }) {
  const s = m.stats;
  const cells: Array<[string, string, string?]> = [
    ['Acceptance', s.acceptanceRate === null ? '—' : `${(s.acceptanceRate * 100).toFixed(2)} %`, `gate ${(m.targets.acceptance * 100).toFixed(0)} %`],
    ['TTFT p99', ms(s.ttftMs.p99), `gate ${ms(m.targets.ttftP99Ms)}`],
    ['TPOT p99', ms(s.tpotMs.p99), `gate ${ms(m.targets.tpotP99Ms)}`],
    ['Throughput', `${s.tokensPerSecond.toFixed(1)} tok/s`],
    ['In flight', `${s.inflight} (peak ${s.inflightPeak})`],
    ['Requests', `${num(s.ok)} ok · ${num(s.errors)} failed · ${num(s.cancelled)} cancelled`],
    ['Loop lag p99', `${m.loop.lagP99Ms.toFixed(1)} ms`, `${m.loop.stalls} stalls`],
  ];
  return (
    <div className="grid cols-3">
      {cells.map(([k, v, sub]) => (
        <div key={k} className="card">
          <div className="muted small">{k}</div>
          <div style={{ fontSize: 20, fontWeight: 700 }}>{v}</div>
          {sub && <div className="muted small">{sub}</div>}
        </div>
      ))}
    </div>
  );
}

/** One gateway worker per engine on a multi-engine box: pick the one the page shows. */
function WorkerSwitcher({ miners, chosen, choose }: { miners: MinerSnapshot[]; chosen: number; choose: (i: number) => void }) {
  return (
    <div className="row" role="group" aria-label="Miner workers" data-testid="worker-switcher">
      {miners.map((m, i) => (
        <button key={m.workerId ?? i} className={`btn ${i === chosen ? 'primary' : ''}`} aria-pressed={i === chosen} onClick={() => choose(i)} title={m.workerName ?? undefined}>
          {`worker ${i} (engine ${i})`} <span className={`badge ${PHASE_BADGE[m.phase]}`}>{m.phase.replace(/-/g, ' ')}</span>
        </button>
      ))}
    </div>
  );
}

export function MinePage() {
  const miners = useSnapshot('miners');
  // undefined until the engine's first snapshot arrives, null when no worker exists.
  const first = miners === undefined ? undefined : (miners[0] ?? null);
  const serve = useSnapshot('serve');
  const settings = useSnapshot('settings');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState(0);
  const several = miners !== undefined && miners.length > 1;
  const miner = several ? (miners[chosen] ?? miners[0]!) : first;
  // A worker in 'failed' keeps retrying on its own: it still counts as started, so the button offers Stop.
  const isRunning = (m: MinerSnapshot | null | undefined) => m !== undefined && m !== null && m.phase !== 'stopped';
  const running = several ? miners.some(isRunning) : isRunning(first);
  const toggle = async () => {
    setBusy(true);
    setError(null);
    const r = await engineApi().invoke(running ? 'mining.stop' : 'mining.start', null);
    if (!r.ok) setError(r.error.message);
    setBusy(false);
  };
  const mining = settings?.role === 'mine' || settings?.role === 'both';
  const preflight = usePreflight('mine');
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Mining</h1>
          <p>Serve every routed request with a TOPLOC proof of the real activations. The gateway judges acceptance, latency and proofs.</p>
        </div>
        <button className={`btn big ${running ? '' : 'primary'}`} onClick={() => void toggle()} disabled={busy || (!running && !preflight?.ready)} data-testid="mine-toggle">
          {busy ? '…' : running ? 'Stop mining' : 'Start mining'}
        </button>
      </div>
      {error && <div className="error-box" role="alert">{error}</div>}
      {!running && <PreflightChecklist role="mine" />}
      {!running && mining && <MineIdle />}
      {several && <WorkerSwitcher miners={miners} chosen={miners[chosen] ? chosen : 0} choose={setChosen} />}
      {miner && (
        <>
          <section className="card stack" aria-label="Miner state">
            <div className="spread">
              <div className="row">
                <span className={`badge ${PHASE_BADGE[miner.phase]}`} data-testid="miner-phase">
                  {miner.phase.replace(/-/g, ' ')}
                </span>
                <span>{miner.detail}</span>
              </div>
              <span className="muted small">
                {miner.legsLive} of {miner.legsPlanned} legs live · worker {miner.workerName ?? '—'}
              </span>
            </div>
            {(miner.phase === 'probing' || miner.phase === 'active') && (
              <p className="small muted">The gateway does not tell a miner when it turns active: probing vs active is estimated from the traffic it sends.</p>
            )}
            {miner.legsWarning && <div className="error-box">{miner.legsWarning}</div>}
            <Legs m={miner} />
            <div className={`badge ${miner.forecast.status === 'on-track' ? 'ok' : miner.forecast.status === 'no-data' ? 'neutral' : miner.forecast.status === 'at-risk' ? 'warn' : 'bad'}`} data-testid="gate-forecast">
              Gate forecast: {miner.forecast.text}
            </div>
          </section>
          <Stats m={miner} />
          <div className="grid cols-2">
            <section className="card" aria-label="State timeline">
              <h3>Timeline</h3>
              <ol className="reasons" data-testid="miner-timeline">
                {[...miner.history].reverse().slice(0, 12).map((t, i) => (
                  <li key={`${t.at}-${i}`}>
                    <span className={`dot ${PHASE_BADGE[t.phase] === 'ok' ? 'ok' : PHASE_BADGE[t.phase] === 'bad' ? 'blocker' : 'warn'}`} />
                    <span>
                      <b>{t.phase.replace(/-/g, ' ')}</b> {t.detail} <span className="muted small">{ago(t.at)}</span>
                    </span>
                  </li>
                ))}
              </ol>
            </section>
            <section className="card" aria-label="Self-audit">
              <h3>Self-audit</h3>
              <p className="small muted">A sample of served requests is re-run through the serve and the sent proof checked locally, as the auditor would.</p>
              <dl className="kv">
                <dt>Audited</dt>
                <dd>
                  {miner.audit.audited} ({miner.audit.failures} failed to run, {miner.audit.skipped} skipped)
                </dd>
                <dt>Last score</dt>
                <dd>{miner.audit.lastScore === null ? '—' : miner.audit.lastScore.toFixed(3)}</dd>
                <dt>Mean / max</dt>
                <dd>
                  {miner.audit.meanScore === null ? '—' : miner.audit.meanScore.toFixed(3)} / {miner.audit.maxScore === null ? '—' : miner.audit.maxScore.toFixed(3)}
                </dd>
                <dt>Cheat threshold</dt>
                <dd>{miner.audit.threshold.toFixed(2)} (honest FP8 scores ~0.2)</dd>
              </dl>
              {miner.audit.skipped > 0 && miner.audit.audited === 0 && (
                <p className="small muted">Skipped audits: the serve's prefix cache still holds those requests, so a re-run returns no fresh activations. A second engine audits the first one's requests.</p>
              )}
              {miner.audit.warning && <div className="error-box">{miner.audit.warning}</div>}
            </section>
          </div>
        </>
      )}
      {serve && <EnginesPanel serve={serve} ttftTargetMs={miner?.targets.ttftP99Ms ?? null} />}
      {miner && (
        <section className="card" aria-label="Last requests">
          <h3>Last requests (metadata only: prompts and answers are never kept)</h3>
          {miner.recent.length === 0 ? (
            <p className="muted">No request served yet. Probe traffic arrives once all legs are admitted.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th>When</th>
                  <th>Outcome</th>
                  <th className="num">Prompt</th>
                  <th className="num">Completion</th>
                  <th className="num">Cached</th>
                  <th className="num">TTFT</th>
                  <th className="num">TPOT</th>
                  <th className="num">Proof</th>
                  <th>Leg</th>
                </tr>
              </thead>
              <tbody>
                {miner.recent.slice(0, 15).map((r) => (
                  <tr key={r.corrId}>
                    <td>{ago(r.receivedAt)}</td>
                    <td>
                      <span className={`badge ${r.outcome === 'ok' ? 'ok' : r.outcome === 'cancelled' ? 'neutral' : 'bad'}`}>{r.outcome}</span> {r.cause ?? r.finishReason ?? ''}
                    </td>
                    <td className="num">{num(r.promptTokens)}</td>
                    <td className="num">{num(r.completionTokens)}</td>
                    <td className="num">{num(r.cachedTokens)}</td>
                    <td className="num">{ms(r.ttftMs)}</td>
                    <td className="num">{ms(r.tpotMs)}</td>
                    <td className="num">{ms(r.proofMs)}</td>
                    <td>{r.leg}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
    </div>
  );
}
