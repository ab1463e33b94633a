import { useEffect, useState } from 'react';
import type { MinerRequestRecord, RequestOutcome, SelfAuditRecord } from '../../../../shared/miner.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { LineChart } from '../charts/line-chart.tsx';
import { num } from '../common/format.ts';
import { downloadText, toCsv } from './csv.ts';

const COLUMNS = ['received_at', 'request_id', 'corr_id', 'outcome', 'cause', 'finish_reason', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'ttft_ms', 'tpot_ms', 'e2e_ms', 'proof_ms', 'leg', 'engine'];

function csvOf(rows: MinerRequestRecord[]): string {
  return toCsv(
    COLUMNS,
    rows.map((r) => [new Date(r.receivedAt).toISOString(), r.requestId, r.corrId, r.outcome, r.cause, r.finishReason, r.promptTokens, r.completionTokens, r.cachedTokens, r.ttftMs, r.tpotMs, r.e2eMs, r.proofMs, r.leg, r.engine]),
  );
}

export function HistoryPage() {
  const earnings = useSnapshot('earnings');
  const [outcome, setOutcome] = useState<RequestOutcome | ''>('');
  const [rows, setRows] = useState<MinerRequestRecord[]>([]);
  const [audits, setAudits] = useState<SelfAuditRecord[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void engineApi()
      .invoke('history.requests', { ...(outcome ? { outcome } : {}), limit: 2000 })
      .then((r) => (r.ok ? setRows(r.value) : setError(r.error.message)));
  }, [outcome]);
  useEffect(() => {
    void engineApi()
      .invoke('history.audits', { limit: 500 })
      .then((r) => r.ok && setAudits(r.value));
  }, []);
  const verdictRows = (earnings?.epochs ?? []).filter((e) => e.row);
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>History</h1>
          <p>Audit verdicts and scores as the provider's epoch results expose them, your own self-audits, and every request this rig served (metadata only).</p>
        </div>
      </div>
      {error && <div className="error-box">{error}</div>}
      <section className="card stack" aria-label="Provider verdicts">
        <h3>Scores and verdicts per epoch (provider)</h3>
        {verdictRows.length === 0 ? (
          <p className="muted">No epoch result names this hotkey yet. The provider publishes each epoch's scores when it closes.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Epoch</th>
                <th>Published facts for this hotkey</th>
              </tr>
            </thead>
            <tbody>
              {verdictRows.map((e) => (
                <tr key={e.epochIndex}>
                  <td>#{e.epochIndex}</td>
                  <td className="mono small">
                    {Object.entries(e.row!)
                      .filter(([, v]) => typeof v !== 'object' || v === null)
                      .map(([k, v]) => `${k}=${String(v)}`)
                      .join('  ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="stack" aria-label="Self-audit">
        <LineChart
          title="Self-audit mismatch score"
          unit=""
          format={(v) => v.toFixed(3)}
          series={[{ label: 'score', color: '#60a5fa', points: [...audits].reverse().map((a) => ({ at: a.at, v: a.score })) }]}
          target={{ value: 0.4, label: 'cheat zone (INT4 ~0.55)' }}
        />
      </section>
      <section className="card stack" aria-label="Requests">
        <div className="spread">
          <h3>Requests ({num(rows.length)})</h3>
          <div className="row">
            <select aria-label="Outcome filter" value={outcome} onChange={(e) => setOutcome(e.target.value as RequestOutcome | '')}>
              <option value="">All outcomes</option>
              <option value="ok">ok</option>
              <option value="error">error</option>
              <option value="cancelled">cancelled</option>
            </select>
            <button className="btn" disabled={rows.length === 0} onClick={() => downloadText(`engy-requests-${new Date().toISOString().slice(0, 10)}.csv`, csvOf(rows))}>
              Export CSV
            </button>
          </div>
        </div>
        {rows.length === 0 ? (
          <p className="muted">No request recorded{outcome ? ` with outcome ${outcome}` : ''}.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Time</th>
                <th>Outcome</th>
                <th className="num">Prompt</th>
                <th className="num">Completion</th>
                <th className="num">TTFT ms</th>
                <th className="num">E2E ms</th>
              </tr>
            </thead>
            <tbody>
              {rows.slice(0, 200).map((r) => (
                <tr key={`${r.corrId}-${r.receivedAt}`}>
                  <td>{new Date(r.receivedAt).toLocaleString()}</td>
                  <td>
                    {r.outcome} {r.cause ?? ''}
                  </td>
                  <td className="num">{num(r.promptTokens)}</td>
                  <td className="num">{num(r.completionTokens)}</td>
                  <td className="num">{r.ttftMs === null ? '—' : Math.round(r.ttftMs)}</td>
                  <td className="num">{Math.round(r.e2eMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
