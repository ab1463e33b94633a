import { useEffect, useState } from 'react';
import type { MinerRequestRecord, RequestOutcome, SelfAuditRecord } from '../../../../shared/miner.ts';
import { fleetActivityKey } from '../../../../shared/miner-fleet.ts';
import { REQUEST_ROWS_KEEP_DAYS } from '../../../../shared/miner.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { UplotChart } from '../charts/uplot-chart.tsx';
import { clock, num } from '../common/format.ts';
import { Term } from '../common/term.tsx';
import { RequestTable } from '../common/request-table.tsx';
import { useNow } from '../common/use-now.ts';
import { ActionError, useAction } from '../common/use-action.tsx';
import { downloadText, toCsv } from './csv.ts';
import { auditWindowMs } from './audit-window.ts';
import { verdictHeadline, verdictSentences } from './verdict.ts';
import { epochFigures } from '../earnings/figures.ts';

const COLUMNS = [
  'received_at',
  'request_id',
  'corr_id',
  'outcome',
  'cause',
  'finish_reason',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'ttft_ms',
  'tpot_ms',
  'e2e_ms',
  'proof_ms',
  'leg',
  'engine',
];
const PAGE = 50;
const SPANS = [
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '24h', label: 'Last 24 h', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  // Older request rows live on only as daily totals (Earnings' all-time tokens).
  { id: 'all', label: `All kept (${REQUEST_ROWS_KEEP_DAYS} days)`, ms: null },
] as const;
type SpanId = (typeof SPANS)[number]['id'];

export function csvOf(rows: MinerRequestRecord[]): string {
  return toCsv(
    COLUMNS,
    rows.map((r) => [
      new Date(r.receivedAt).toISOString(),
      r.requestId,
      r.corrId,
      r.outcome,
      r.cause,
      r.finishReason,
      r.promptTokens,
      r.completionTokens,
      r.cachedTokens,
      r.ttftMs,
      r.tpotMs,
      r.e2eMs,
      r.proofMs,
      r.leg,
      r.engine,
    ]),
  );
}

const VERDICTS_FIRST = 5;

/** One line per epoch (its sentences folded under it), the newest few first: the request table stays in view. */
function Verdicts() {
  const earnings = useSnapshot('earnings');
  const [all, setAll] = useState(false);
  const rows = earnings?.epochs ?? [];
  const shown = rows.slice(0, all ? 20 : VERDICTS_FIRST);
  return (
    <section className="card stack" aria-labelledby="verdicts-h">
      <h2 id="verdicts-h">Provider verdicts per epoch</h2>
      {rows.length === 0 ? (
        <p className="muted">No verified epoch result yet. The provider publishes each epoch's scores when it closes.</p>
      ) : (
        <>
          <ol className="verdicts" data-testid="verdicts">
            {shown.map((e) => {
              const f = epochFigures(e);
              return (
                <li key={e.epochIndex} data-epoch={e.epochIndex}>
                  <span className={`badge ${e.gate.passed === false ? 'bad' : e.gate.passed ? 'ok' : 'neutral'}`}>#{e.epochIndex}</span>
                  <details className="expander small">
                    <summary>
                      {verdictHeadline(e)} · <span data-figure="billed-tokens">{f.billedTokens}</span> billed tokens · <span data-figure="billed-requests">{f.billedRequests}</span>
                    </summary>
                    {verdictSentences(e).map((s, i) => (
                      <p key={i}>{s}</p>
                    ))}
                  </details>
                </li>
              );
            })}
          </ol>
          {rows.length > VERDICTS_FIRST && (
            <button className="btn small-btn" onClick={() => setAll((a) => !a)} aria-expanded={all}>
              {all ? `Show the newest ${VERDICTS_FIRST}` : `Show ${Math.min(rows.length, 20)} epochs`}
            </button>
          )}
        </>
      )}
    </section>
  );
}

function SelfAudits({ audits }: { audits: SelfAuditRecord[] }) {
  const miner = useSnapshot('miners')?.[0] ?? null;
  const threshold = miner?.audit.threshold ?? null;
  const skipped = audits.filter((a) => a.score === null);
  const now = useNow(10_000);
  return (
    <section className="stack" aria-labelledby="audit-h">
      <h2 id="audit-h">
        <Term k="self-audit">Self-audit</Term>
      </h2>
      <UplotChart
        title="Self-audit mismatch score (lower is better)"
        unit="score"
        range={[0, 1]}
        windowMs={auditWindowMs(
          audits.map((a) => a.at),
          now,
        )}
        series={[{ label: 'mismatch', points: [...audits].reverse().map((a) => ({ at: a.at, v: a.score })) }]}
        {...(threshold !== null ? { gate: { value: threshold, label: `cheat threshold ${threshold.toFixed(3)} (model spec)` } } : {})}
        format={(v) => v.toFixed(2)}
        note="Each point: one sampled request re-run on the serve and its sent TOPLOC proof checked, scored as the auditor does (mean top-k exponent mismatch / k)."
      />
      <p className="small" data-testid="audit-status">
        {audits.length - skipped.length} audits ran, {skipped.length} did not (of the last {audits.length} sampled).
        {skipped[0]?.error ? ` Latest reason: ${skipped[0].error}.` : ''}
      </p>
    </section>
  );
}

export function HistoryPage() {
  const miners = useSnapshot('miners');
  const now = useNow(1000);
  const [outcome, setOutcome] = useState<RequestOutcome | ''>('');
  const [span, setSpan] = useState<SpanId>('24h');
  const [page, setPage] = useState(0);
  const [rows, setRows] = useState<MinerRequestRecord[]>([]);
  const [total, setTotal] = useState(0);
  const [audits, setAudits] = useState<SelfAuditRecord[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  // The table follows every worker live: a new request (or a new audit) on any of them refetches the page shown.
  const tick = fleetActivityKey(miners ?? []);
  const spanMs = SPANS.find((s) => s.id === span)!.ms;
  const filter = () => ({ ...(outcome ? { outcome } : {}), ...(spanMs !== null ? { since: Math.max(0, Math.floor(Date.now() - spanMs)) } : {}) });

  useEffect(() => {
    let live = true;
    const f = filter();
    void Promise.all([engineApi().invoke('history.requests', { ...f, limit: PAGE, offset: page * PAGE }), engineApi().invoke('history.count', f)]).then(([r, c]) => {
      if (!live) return;
      if (r.ok) setRows(r.value);
      else setError(r.error.message);
      if (c.ok) setTotal(c.value.total);
    });
    return () => {
      live = false;
    };
    // filter() reads outcome and span, both listed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [outcome, span, page, tick]);
  const { invoke: loadAudits, error: auditsError } = useAction();
  useEffect(() => {
    void loadAudits('history.audits', { limit: 500 }).then((r) => r.ok && setAudits(r.value));
  }, [tick, loadAudits]);

  const pages = Math.max(1, Math.ceil(total / PAGE));
  const exportCsv = async () => {
    setExporting(true);
    const r = await engineApi().invoke('history.requests', { ...filter(), limit: 10_000 });
    setExporting(false);
    if (r.ok) downloadText(`engy-requests-${span}-${new Date().toISOString().slice(0, 10)}.csv`, csvOf(r.value));
    else setError(r.error.message);
  };
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>History</h1>
          <p>The provider's verdicts per epoch, your own self-audits, and every request this rig served (metadata only: prompts and answers are never kept).</p>
        </div>
      </div>
      <ActionError error={error ?? auditsError} />
      <Verdicts />
      <SelfAudits audits={audits} />
      <section className="card stack" aria-labelledby="requests-h">
        <div className="spread" style={{ flexWrap: 'wrap' }}>
          <h2 id="requests-h">
            Requests ({num(total)}){' '}
            <span className="muted small" style={{ textTransform: 'none', letterSpacing: 0 }}>
              live
            </span>
          </h2>
          <div className="row">
            <select aria-label="Outcome filter" value={outcome} onChange={(e) => (setOutcome(e.target.value as RequestOutcome | ''), setPage(0))}>
              <option value="">All outcomes</option>
              <option value="ok">ok</option>
              <option value="error">error</option>
              <option value="cancelled">cancelled</option>
            </select>
            <select aria-label="Time filter" value={span} onChange={(e) => (setSpan(e.target.value as SpanId), setPage(0))}>
              {SPANS.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.label}
                </option>
              ))}
            </select>
            <button className="btn" disabled={total === 0 || exporting} onClick={() => void exportCsv()}>
              {exporting ? 'Exporting…' : `Export CSV (${num(Math.min(total, 10_000))} rows)`}
            </button>
          </div>
        </div>
        {rows.length === 0 ? (
          <p className="muted">No request recorded{outcome ? ` with outcome ${outcome}` : ''} in this window.</p>
        ) : (
          <>
            <RequestTable rows={rows} when={(r) => clock(r.receivedAt, now)} testId="request-table" />
            <nav className="pager" aria-label="Request pages">
              <button className="btn small-btn" disabled={page === 0} onClick={() => setPage(0)}>
                Newest
              </button>
              <button className="btn small-btn" disabled={page === 0} onClick={() => setPage((p) => Math.max(0, p - 1))}>
                Newer
              </button>
              <span className="small">
                Page {page + 1} of {pages} · rows {num(page * PAGE + 1)}–{num(Math.min(total, (page + 1) * PAGE))} of {num(total)}
              </span>
              <button className="btn small-btn" disabled={page + 1 >= pages} onClick={() => setPage((p) => p + 1)}>
                Older
              </button>
            </nav>
          </>
        )}
      </section>
    </div>
  );
}
