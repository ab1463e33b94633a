// An epoch's details, opened below its row across the whole table (the table keeps its columns): the
// figures the row leaves out (weight share, realised τ, gates, billed and served tokens), the τ and money
// arithmetic in text, and the provider's row under human words.
import type { EpochEarnings } from '../../../../shared/earnings.ts';
import type { SpanProfit } from '../../../../shared/profit.ts';
import { duration, tau } from '../common/format.ts';
import { epochFigures, fieldLabel, gateWords, money, providerCounts } from './figures.ts';

/** A published value as text: numbers grouped, nested objects as compact JSON. */
function valueText(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return Number.isInteger(v) ? v.toLocaleString('en-US') : String(v);
  if (typeof v === 'string' || typeof v === 'boolean') return String(v);
  const s = JSON.stringify(v);
  return s.length > 400 ? `${s.slice(0, 400)}…` : s;
}

export interface MoneyBasis {
  m: SpanProfit;
  perTao: number | null;
  powerW: number | null;
  kwhPrice: number | null;
}

function moneyText(e: EpochEarnings, b: MoneyBasis): string {
  const cur = b.m.currency;
  const income =
    b.m.income === null ? `no ${cur} figure (${e.projectedTao === null ? 'no projected τ' : 'no τ price'})` : `${tau(e.projectedTao)} × ${money(b.perTao, cur)}/τ = ${money(b.m.income, cur)}`;
  const span = e.startMs !== null && e.endMs !== null ? duration(e.endMs - e.startMs) : null;
  const power =
    b.m.kwh === null
      ? 'electricity unknown (GPU power not measured, or no window)'
      : `${b.m.kwh.toFixed(3)} kWh (${Math.round(b.powerW ?? 0).toLocaleString('en-US')} W, the GPUs' draw now, × ${span})${b.m.powerCost === null ? ': set a kWh price in Settings > Profit' : ` × ${b.kwhPrice} ${cur}/kWh = ${money(b.m.powerCost, cur)}`}`;
  return `${income}; ${power}; net ${money(b.m.net, cur)}.`;
}

export function RowDetail({ e, basis }: { e: EpochEarnings; basis: MoneyBasis }) {
  const f = epochFigures(e);
  const c = providerCounts(e.row);
  const shown = (k: string) => c.used.has(k) || /hotkey/i.test(k);
  return (
    <dl className="detail-grid" data-testid={`epoch-detail-${e.epochIndex}`}>
      <dt>Digest</dt>
      <dd className="mono">{e.digest}</dd>
      <dt>Weight</dt>
      <dd>
        {e.weight.toLocaleString('en-US')} of 65,535 ({f.share})
      </dd>
      <dt>Projected τ</dt>
      <dd>
        {tau(e.projectedTao)} = {e.projectedNote}
      </dd>
      <dt>Realised τ</dt>
      <dd>
        {e.realisedRunning ? 'running, so far ' : ''}
        {tau(e.realisedTao)}: {e.realisedNote}
      </dd>
      <dt>Money</dt>
      <dd>{moneyText(e, basis)}</dd>
      <dt>Billed tokens (provider)</dt>
      <dd data-figure="billed-tokens">{f.billedTokens}</dd>
      <dt>Billed requests (provider)</dt>
      <dd data-figure="billed-requests">{f.billedRequests}</dd>
      <dt>Served here (this rig's records)</dt>
      <dd>
        <span data-figure="served-tokens">{f.servedTokens}</span> tokens in {f.servedRequests} requests, probes and unbilled traffic included
      </dd>
      {e.gate.passed === false ? (
        <>
          <dt>Gate failed on</dt>
          <dd>{gateWords(e.gate.reason)}</dd>
        </>
      ) : (
        <>
          <dt>Gates</dt>
          <dd>{e.gate.passed ? 'passed' : 'not stated by the provider'}</dd>
        </>
      )}
      {c.pass !== null || c.cheat !== null || c.unproven !== null ? (
        <>
          <dt>Audits</dt>
          <dd>
            {valueText(c.pass ?? 0)} passed, {valueText(c.cheat ?? 0)} judged cheat, {valueText(c.unproven ?? 0)} unproven
          </dd>
        </>
      ) : null}
      {c.score !== null && (
        <>
          <dt>Score</dt>
          <dd>{valueText(c.score)}</dd>
        </>
      )}
      {e.row ? (
        Object.entries(e.row)
          .filter(([k]) => !shown(k) && !/gate_?reason|^gates?_?pass(ed)?$/i.test(k))
          .map(([k, v]) => (
            <div key={k} style={{ display: 'contents' }}>
              <dt>{fieldLabel(k)}</dt>
              <dd>{valueText(v)}</dd>
            </div>
          ))
      ) : (
        <>
          <dt>Provider row</dt>
          <dd>{e.burn ? 'burn epoch: no billed traffic' : 'no row for this hotkey'}</dd>
        </>
      )}
    </dl>
  );
}
