import { useState } from 'react';
import { windowLabel, type MinerPhase, type MinerSnapshot } from '../../../../shared/miner.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { ago, num } from '../common/format.ts';
import { Term } from '../common/term.tsx';
import { RequestTable } from '../common/request-table.tsx';
import { useNow } from '../common/use-now.ts';
import { useSeriesHistory } from '../charts/series-history.ts';
import { EnginesPanel } from './engines-panel.tsx';
import { PreflightChecklist, usePreflight } from '../preflight/preflight-checklist.tsx';
import { MineIdle } from '../preflight/mine-idle.tsx';
import { minerFigures } from './figures.ts';
import { ServeHealth } from './serve-health.tsx';
import { forecastWords } from './forecast-words.ts';
import { MinerCharts, WindowPicker, CHART_WINDOWS } from './miner-charts.tsx';
import { phaseDetail, phaseLabel } from './phase-words.ts';
import { QualificationPanel } from './qualification-panel.tsx';
import { LiveRehearsalCard } from './live-rehearsal-card.tsx';
import { ProfitCard } from '../earnings/profit-card.tsx';
import { GpuLivePanel } from './gpu-live-panel.tsx';

const PHASE_BADGE: Record<MinerPhase, string> = {
  stopped: 'neutral',
  'starting-serve': 'info',
  connecting: 'info',
  'waiting-for-probe': 'info',
  probing: 'warn',
  active: 'ok',
  pulled: 'bad',
  denied: 'bad',
  reconnecting: 'warn',
  withdrawn: 'bad',
  failed: 'bad',
};

function Legs({ m }: { m: MinerSnapshot }) {
  return (
    <div className="row" role="group" aria-label="Gateway legs">
      {m.legs.map((l) => (
        <span key={l.index} className={`badge ${l.status === 'admitted' ? 'ok' : l.status === 'denied' ? 'bad' : l.status === 'open' ? 'info' : 'neutral'}`}>
          leg {l.index}: {l.status}
          {l.inflight > 0 ? ` · ${l.inflight} in flight` : ''}
          {(l.denyReason ?? l.lastError) ? ` · ${l.denyReason ?? l.lastError}` : ''}
        </span>
      ))}
    </div>
  );
}

/** The cards: one computation (the miner's stats over its window), formatted through figures.ts. */
function Stats({ m }: { m: MinerSnapshot }) {
  const s = m.stats;
  const w = windowLabel(s.windowMs);
  const cells: Array<{ id: string; k: string; v: string; sub?: string }> = [
    ...minerFigures(s, m.targets).map((f) => ({ id: f.id, k: f.label, v: `${f.value} ${f.unit}`, ...(f.gate ? { sub: f.gate } : {}) })),
    { id: 'inflight', k: 'In flight, now', v: `${s.inflight} request${s.inflight === 1 ? '' : 's'}`, sub: `peak ${s.inflightPeak} since start` },
    { id: 'requests', k: `Requests, ${w}`, v: `${num(s.ok)} ok`, sub: `${num(s.errors)} failed · ${num(s.cancelled)} cancelled` },
    {
      id: 'lag',
      k: `Event-loop lag p99, ${windowLabel(m.loop.windowMs)}`,
      v: `${num(m.loop.lagP99Ms)} ms`,
      sub: `max ${num(m.loop.lagMaxMs)} ms · ${num(m.loop.stalls)} stalls of 1 s or more since start`,
    },
  ];
  return (
    <div className="grid cols-4" data-testid="miner-cards">
      {cells.map((c) => (
        <div key={c.id} className="card stat" data-figure={c.id}>
          <div className="muted small">{c.k}</div>
          <div className="stat-value">{c.v}</div>
          {c.sub && <div className="muted small">{c.sub}</div>}
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
          {`worker ${i} (engine ${i})`} <span className={`badge ${PHASE_BADGE[m.phase]}`}>{phaseLabel(m.phase)}</span>
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
  const [windowMs, setWindowMs] = useState<number>(CHART_WINDOWS[1]!.ms);
  const now = useNow(1000);
  const { history, error: historyError } = useSeriesHistory(windowMs);
  const several = miners !== undefined && miners.length > 1;
  const miner = several ? (miners[chosen] ?? miners[0]!) : first;
  // A worker in 'failed' keeps retrying on its own: it still counts as started, so the button offers Stop.
  const isRunning = (m: MinerSnapshot | null | undefined) => m !== undefined && m !== null && m.phase !== 'stopped';
  const running = several ? miners.some(isRunning) : isRunning(first);
  const [confirmStop, setConfirmStop] = useState(false);
  const act = async (run: () => Promise<{ ok: true } | { ok: false; error: { message: string } }>) => {
    setBusy(true);
    setError(null);
    setConfirmStop(false);
    const r = await run();
    if (!r.ok) setError(r.error.message);
    setBusy(false);
  };
  const start = (skipRehearsal: boolean) => act(() => engineApi().invoke('mining.start', skipRehearsal ? { skipRehearsal: true } : null));
  const stop = () => act(() => engineApi().invoke('mining.stop', null));
  const toggle = async () => {
    // Stopping costs the worker its place: the next start is probed again. Ask first.
    if (running) setConfirmStop(true);
    else await start(false);
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
        {/* Once a worker exists, Stop is offered even while Start is still bringing up the serve and rehearsing. */}
        <button
          className={`btn big ${running ? '' : 'primary'}`}
          onClick={() => void toggle()}
          disabled={!running && (busy || !preflight?.ready)}
          title={!running && !preflight?.ready ? 'Fix the pre-flight checks below first: each has a button that goes to the place that fixes it.' : undefined}
          data-testid="mine-toggle"
        >
          {running ? 'Stop mining' : busy ? '…' : 'Start mining'}
        </button>
      </div>
      {!running && preflight?.ready && (
        <p className="small muted" style={{ margin: 0 }}>
          Start runs the serve, rehearses the gateway's probe wave against it, then goes live.{' '}
          <button className="btn small-btn" onClick={() => void start(true)} disabled={busy} data-testid="start-skip-rehearsal">
            Start without rehearsal
          </button>
        </p>
      )}
      {confirmStop && (
        <div className="card stack" role="alertdialog" aria-label="Stop mining?" data-testid="confirm-stop">
          <p style={{ margin: 0 }}>
            <b>Stop mining?</b> In-flight requests are cut and the worker leaves the gateway. On the next start it is probed again before paid traffic returns (hours early on, faster lately).
          </p>
          <div className="row">
            <button className="btn" onClick={() => void stop()} data-testid="confirm-stop-yes">
              Stop mining
            </button>
            <button className="btn primary" onClick={() => setConfirmStop(false)}>
              Keep mining
            </button>
          </div>
        </div>
      )}
      {error && (
        <div className="error-box" role="alert">
          {error}
        </div>
      )}
      {serve?.rehearsal && <LiveRehearsalCard r={serve.rehearsal} now={now} />}
      {!running && <PreflightChecklist role="mine" />}
      {!running && mining && <MineIdle />}
      {several && <WorkerSwitcher miners={miners} chosen={miners[chosen] ? chosen : 0} choose={setChosen} />}
      {miner && (
        <>
          <section className="card stack" aria-label="Miner state">
            <div className="spread">
              <div className="row">
                <span className={`badge ${PHASE_BADGE[miner.phase]}`} data-testid="miner-phase">
                  {phaseLabel(miner.phase)}
                </span>
                <span>{phaseDetail(miner.phase, miner.detail)}</span>
              </div>
              <span className="muted small">
                {miner.legsLive} of {miner.legsPlanned} <Term k="legs">legs</Term> live · worker {miner.workerName ?? '—'}
              </span>
            </div>
            <QualificationPanel m={miner} now={now} />
            {miner.phase === 'probing' && (
              <p className="small muted">
                The gateway does not tell a miner when it turns active: <Term k="probe">probing</Term> vs earning is estimated from the traffic it sends.
              </p>
            )}
            {miner.capacity && (
              <p className="small" data-testid="capacity">
                <Term k="MAX_INFLIGHT">MAX_INFLIGHT</Term> {miner.capacity.maxInflightTotal} ({miner.capacity.perLeg} per leg over {miner.capacity.legs} legs) · requests up to{' '}
                {miner.capacity.maxInputTokens.toLocaleString('en-US')} input and {miner.capacity.maxOutputTokens.toLocaleString('en-US')} output tokens, {miner.capacity.maxRequestS} s
              </p>
            )}
            {miner.legsWarning && <div className="error-box">{miner.legsWarning}</div>}
            <ServeHealth m={miner} workers={miners?.length ?? 1} />
            <Legs m={miner} />
            <div className={`badge forecast-badge ${forecastWords(miner).tone}`} data-testid="gate-forecast">
              {forecastWords(miner).text}
            </div>
          </section>
          {/* Money right under the state: a home miner's first question after "is it working?". */}
          {miner.phase !== 'stopped' && <ProfitCard />}
          {serve && (serve.gpus.length > 0 || serve.gpuError) && <GpuLivePanel serve={serve} />}
          <Stats m={miner} />
          <div className="spread">
            <h2>Charts</h2>
            <WindowPicker value={windowMs} onChange={setWindowMs} />
          </div>
          {historyError && (
            <p className="small muted" role="status">
              {historyError}
            </p>
          )}
          <MinerCharts m={miner} worker={several ? chosen : 0} windowMs={windowMs} history={history} />
          <div className="grid cols-2">
            <section className="card" aria-label="State timeline">
              <h2>Timeline</h2>
              <ol className="reasons" data-testid="miner-timeline">
                {[...miner.history]
                  .reverse()
                  .slice(0, 12)
                  .map((t, i) => (
                    <li key={`${t.at}-${i}`}>
                      <span className={`dot ${PHASE_BADGE[t.phase] === 'ok' ? 'ok' : PHASE_BADGE[t.phase] === 'bad' ? 'blocker' : 'warn'}`} aria-hidden="true" />
                      <span>
                        <b>{phaseLabel(t.phase)}</b> {phaseDetail(t.phase, t.detail)} <span className="muted small">{ago(t.at, now)}</span>
                      </span>
                    </li>
                  ))}
              </ol>
            </section>
            <section className="card" aria-label="Self-audit">
              <h2>
                <Term k="self-audit">Self-audit</Term>
              </h2>
              <p className="small muted">
                A sample of served requests is re-run through the serve and the sent <Term k="TOPLOC" /> proof checked locally, as the auditor would. Scores are the mean top-k exponent mismatch / k
                (lower is better).
              </p>
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
                <dd data-testid="cheat-threshold">{miner.audit.threshold.toFixed(3)} (the model spec's toploc v / k; honest FP8 scores ~0.2)</dd>
              </dl>
              <p className="small muted" data-testid="audit-mode">
                {miner.audit.mode === 'flush-when-idle'
                  ? `One engine: an audit waits until the serve is idle, flushes its prefix cache (sglang POST /flush_cache, ${miner.audit.flushes ?? 0} so far) and re-runs the request.${miner.audit.waiting ? ' A sample is waiting for the serve to go idle.' : ''}`
                  : 'Several engines: a request is re-run on an engine that did not serve it, so no cache flush is needed.'}
              </p>
              {miner.audit.skipped > 0 && (
                <p className="small" data-testid="audit-skips">
                  {miner.audit.skipped} skipped of {miner.audit.audited + miner.audit.skipped + miner.audit.failures} sampled:{' '}
                  {(miner.audit.skipReasons ?? []).map((r) => `${r.count} because ${r.reason}`).join('; ') || 'no reason recorded'}.
                </p>
              )}
              {miner.audit.warning && <div className="error-box">{miner.audit.warning}</div>}
            </section>
          </div>
        </>
      )}
      {serve && <EnginesPanel serve={serve} ttftTargetMs={miner?.targets.ttftP99Ms ?? null} windowMs={windowMs} history={history} />}
      {miner && (
        <section className="card" aria-label="Last requests">
          <h2>Last requests</h2>
          <p className="small muted">Metadata only: prompts and answers are never kept. The full list, with paging, filters and CSV export, is on History.</p>
          {miner.recent.length === 0 ? (
            <p className="muted">No request served yet. Probe traffic arrives once all legs are admitted.</p>
          ) : (
            <RequestTable rows={miner.recent.slice(0, 15)} when={(r) => ago(r.receivedAt, now)} testId="recent-requests" />
          )}
        </section>
      )}
    </div>
  );
}
