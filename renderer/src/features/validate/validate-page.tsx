import { useState } from 'react';
import type { ValidatorSnapshot } from '../../../../shared/validator.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { ago, duration } from '../common/format.ts';
import { Term } from '../common/term.tsx';
import { useNow } from '../common/use-now.ts';
import { formatTao } from '../../../../shared/wallet.ts';
import { CommitRevealCard } from './commit-reveal-card.tsx';
import { PreflightChecklist, usePreflight } from '../preflight/preflight-checklist.tsx';

/** Blocks since the last weights vs the activity cutoff: turns amber at half, red at 80 %, before the validator drops out. */
function CutoffBar({ n }: { n: NonNullable<ValidatorSnapshot['neuron']> }) {
  if (n.blocksSinceUpdate === null || n.activityCutoff === null) return <p className="muted">Blocks since the last update: unknown until the chain answers.</p>;
  const f = Math.min(1, n.blocksSinceUpdate / n.activityCutoff);
  const color = f >= 0.8 ? 'var(--bad)' : f >= 0.5 ? 'var(--warn)' : 'var(--accent)';
  return (
    <div data-testid="cutoff-bar">
      <div className="spread small">
        <span>{n.blocksSinceUpdate} blocks since the last update</span>
        <span className="muted">activity cutoff {n.activityCutoff} blocks</span>
      </div>
      <div className="meter" style={{ height: 12 }} role="meter" aria-valuenow={n.blocksSinceUpdate} aria-valuemax={n.activityCutoff} aria-label="blocks since last update">
        <span style={{ width: `${f * 100}%`, background: color }} />
      </div>
    </div>
  );
}

function health(h: 'unknown' | 'ok' | 'down') {
  return <span className={`badge ${h === 'ok' ? 'ok' : h === 'down' ? 'bad' : 'neutral'}`}>{h === 'ok' ? 'reachable' : h === 'down' ? 'unreachable' : 'unknown'}</span>;
}

/** A tick outcome in words, with the glossary on the jargon ones ("skipped:too-soon"). */
function Outcome({ outcome }: { outcome: string }) {
  if (outcome === 'skipped:too-soon') return <Term k="skipped:too-soon">skipped: too soon</Term>;
  return <>{outcome.replace(/:/g, ': ').replace(/-/g, ' ')}</>;
}

const TICK_STATUS = (o: string) => (/failed|rejected|error/.test(o) ? ['blocker', 'problem'] : o.startsWith('skipped') ? ['warn', 'skipped'] : ['ok', 'done']) as [string, string];

export function ValidatePage() {
  const v = useSnapshot('validator');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const running = v !== undefined && v !== null && (v.status === 'running' || v.status === 'starting');
  const preflight = usePreflight('validate');
  const toggle = async () => {
    setBusy(true);
    setError(null);
    const r = await engineApi().invoke(running ? 'validator.stop' : 'validator.start', null);
    if (!r.ok) setError(r.error.message);
    setBusy(false);
  };
  const now = useNow(1000);
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Validating</h1>
          <p>Fetch the master-signed epoch result, verify it, and put the weight vector on chain every ~120 blocks. CPU only.</p>
        </div>
        <button className={`btn big ${running ? '' : 'primary'}`} onClick={() => void toggle()} disabled={busy || (!running && !preflight?.ready)} data-testid="validate-toggle">
          {busy ? '…' : running ? 'Stop validating' : 'Start validating'}
        </button>
      </div>
      {error && (
        <div className="error-box" role="alert">
          {error}
        </div>
      )}
      {!running && <PreflightChecklist role="validate" />}
      {v && (
        <>
          {v.failure && <div className="error-box">{v.failure}</div>}
          {v.warnings.map((w) => (
            <div key={w} className="error-box" style={{ borderColor: 'var(--warn)', color: 'var(--warn)' }}>
              {w}
            </div>
          ))}
          <div className="grid cols-3">
            <div className="card">
              <div className="muted small">Last verified epoch</div>
              <div className="stat-value" data-testid="verified-epoch">
                {v.lastVerified ? `#${v.lastVerified.epochIndex}` : '—'}
              </div>
              <div className="mono small muted">{v.lastVerified ? `${v.lastVerified.digest.slice(0, 16)}…` : 'no payload verified yet'}</div>
            </div>
            <div className="card">
              <div className="muted small">On chain</div>
              <div className="stat-value">{v.applied ? `epoch #${v.applied.epochIndex}` : '—'}</div>
              <div className="muted small">{v.applied?.block ? `block ${v.applied.block}` : 'nothing landed yet'}</div>
            </div>
            <div className="card">
              <div className="muted small">Next resubmit</div>
              <div className="stat-value" data-testid="next-resubmit">
                {v.nextResubmit?.at ? (v.nextResubmit.at > now ? `in ${duration(v.nextResubmit.at - now)}` : 'due now') : '—'}
              </div>
              <div className="muted small">{v.nextResubmit?.block ? `at block ${v.nextResubmit.block}` : ''}</div>
            </div>
          </div>
          <CommitRevealCard cr={v.commitReveal} chainBlock={v.chain.block} />
          <div className="grid cols-2">
            <section className="card stack" aria-label="Neuron">
              <h2>Your validator</h2>
              <dl className="kv">
                <dt>Status</dt>
                <dd>{v.status}</dd>
                <dt>Hotkey</dt>
                <dd className="mono">{v.hotkey ?? '—'}</dd>
                <dt>UID</dt>
                <dd>{v.neuron?.uid ?? 'not registered'}</dd>
                <dt>Permit</dt>
                <dd>{v.neuron ? (v.neuron.validatorPermit ? 'yes' : 'no: submissions will fail') : '—'}</dd>
                <dt>Stake</dt>
                <dd>{v.neuron ? formatTao(v.neuron.stakeRao) : '—'}</dd>
                <dt>Chain</dt>
                <dd>
                  {health(v.chain.health)} {v.chain.block !== null ? `block ${v.chain.block}` : ''} {v.chain.error ?? ''}
                </dd>
                <dt>Provider</dt>
                <dd>
                  {health(v.provider.health)} {v.provider.error ?? ''}
                </dd>
                <dt>Last tick</dt>
                <dd>{v.lastTickAt ? ago(v.lastTickAt, now) : 'not yet'}</dd>
              </dl>
              {v.neuron && <CutoffBar n={v.neuron} />}
            </section>
            <section className="card" aria-label="Ticks">
              <h2>Recent ticks</h2>
              <ol className="reasons">
                {v.recentTicks.slice(0, 10).map((t, i) => (
                  <li key={`${t.at}-${i}`}>
                    <span className={`dot ${TICK_STATUS(t.outcome)[0]}`} aria-hidden="true" />
                    <span>
                      <b>
                        <Outcome outcome={t.outcome} />
                      </b>{' '}
                      {t.detail} <span className="muted small">{ago(t.at, now)}</span>
                    </span>
                  </li>
                ))}
              </ol>
            </section>
          </div>
          <section className="card" aria-label="Submissions">
            <h2>Submissions</h2>
            {v.recentSubmissions.length === 0 ? (
              <p className="muted">No submission yet.</p>
            ) : (
              <div className="table-scroll">
                <table data-testid="submissions">
                  <thead>
                    <tr>
                      <th>When</th>
                      <th>Epoch</th>
                      <th>Kind</th>
                      <th className="num">Block</th>
                      <th className="num">UIDs</th>
                      <th className="num">Dropped share</th>
                      <th>Outcome</th>
                      <th>Extrinsic</th>
                    </tr>
                  </thead>
                  <tbody>
                    {v.recentSubmissions.slice(0, 20).map((s, i) => (
                      <tr key={`${s.at}-${i}`}>
                        <td className="nowrap">{ago(s.at, now)}</td>
                        <td>#{s.epochIndex}</td>
                        <td>{s.kind}</td>
                        <td className="num">{s.includedBlock ?? s.block ?? '—'}</td>
                        <td className="num">{s.uids.length}</td>
                        <td className="num">{(s.droppedShare * 100).toFixed(1)} %</td>
                        <td>
                          {s.ok ? (
                            <span className="badge ok">landed</span>
                          ) : (
                            <span className="badge bad" title={s.error ?? ''}>
                              {s.errorCode ?? 'failed'}
                            </span>
                          )}{' '}
                          {s.ok ? '' : s.error}
                        </td>
                        <td className="mono small">{s.extrinsicHash ? `${s.extrinsicHash.slice(0, 12)}…` : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </div>
  );
}
