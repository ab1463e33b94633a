// The Earnings table: what a home miner reads per epoch (which epoch, when, τ earned, its value in their
// currency, the electricity it cost, the net), narrow enough to fit at 1280 px without scrolling sideways.
// Everything else (weight share, realised-on-chain arithmetic, billed and served tokens, the provider's row)
// is in the row's details, opened below it. Below 900 px the window folds under the epoch number (a
// two-line row, styles.css .epoch-table), so the money columns stay in view at 800 px.
import { useState } from 'react';
import type { EpochEarnings } from '../../../../shared/earnings.ts';
import type { TauPriceSnapshot } from '../../../../shared/price.ts';
import { clock, duration, tau } from '../common/format.ts';
import { epochMoney, gateWords, money } from './figures.ts';
import { RowDetail } from './row-detail.tsx';

/** The columns the row shows, in order: the only place the row's layout is decided (the render test reads it). */
export function epochColumns(currency: string): { key: 'epoch' | 'when' | 'earned' | 'value' | 'power' | 'net'; header: string; num: boolean }[] {
  const cur = currency.toUpperCase();
  return [
    { key: 'epoch', header: 'Epoch', num: false },
    { key: 'when', header: 'When (local time)', num: false },
    { key: 'earned', header: 'Earned τ (projected)', num: true },
    { key: 'value', header: `Value in ${cur}`, num: true },
    { key: 'power', header: `Power cost (${cur})`, num: true },
    { key: 'net', header: `Net (${cur})`, num: true },
  ];
}

export const FIRST_ROWS = 12;

export interface MoneyInputs {
  price: TauPriceSnapshot | null;
  powerW: number | null;
  kwhPrice: number | null;
}

export function windowText(e: EpochEarnings): string {
  if (e.startMs === null || e.endMs === null) return e.epochStart && e.epochEnd ? `${e.epochStart} → ${e.epochEnd}` : '—';
  return `${clock(e.startMs)} → ${clock(e.endMs)} (${duration(e.endMs - e.startMs)})`;
}

function EpochRow({ x, inputs, columns }: { x: EpochEarnings; inputs: MoneyInputs; columns: number }) {
  const [open, setOpen] = useState(false);
  const m = epochMoney(x, inputs.price, inputs.powerW, inputs.kwhPrice);
  const cur = m.currency;
  const when = windowText(x);
  return (
    <>
      <tr data-epoch={x.epochIndex}>
        <td>
          <span className="nowrap">
            #{x.epochIndex}{' '}
            <button className="btn small-btn" aria-expanded={open} aria-controls={`epoch-detail-row-${x.epochIndex}`} onClick={() => setOpen((o) => !o)}>
              {open ? 'hide details' : 'details'}
            </button>
          </span>
          {/* Shown only in the two-line row (narrow window), where the When column is hidden. */}
          <span className="epoch-when-inline small muted">{when}</span>
          {x.gate.passed === false && (
            <span className="epoch-gate">
              <span className="badge bad" title={gateWords(x.gate.reason)}>
                gate failed
              </span>
            </span>
          )}
        </td>
        <td className="small epoch-when">{when}</td>
        <td className="num">
          <div className="nowrap">{tau(x.projectedTao)}</div>
          <div className="small muted" data-figure="realised">
            {x.realisedRunning ? (
              <>
                <span className="badge info">running</span> realised {tau(x.realisedTao)} so far
              </>
            ) : (
              `realised ${tau(x.realisedTao)}`
            )}
          </div>
        </td>
        <td className="num nowrap" data-figure="epoch-income">
          {money(m.income, cur)}
        </td>
        <td className="num nowrap" data-figure="epoch-power">
          {money(m.powerCost, cur)}
        </td>
        <td className={`num nowrap${m.net !== null && m.net < 0 ? ' bad-text' : ''}`} data-figure="epoch-net">
          {money(m.net, cur)}
        </td>
      </tr>
      {open && (
        <tr className="detail-row" id={`epoch-detail-row-${x.epochIndex}`}>
          <td colSpan={columns}>
            <RowDetail e={x} basis={{ m, perTao: inputs.price?.perTao ?? null, powerW: inputs.powerW, kwhPrice: inputs.kwhPrice }} />
          </td>
        </tr>
      )}
    </>
  );
}

export function EpochTable({ epochs, inputs }: { epochs: EpochEarnings[]; inputs: MoneyInputs }) {
  const [all, setAll] = useState(false);
  const shown = all ? epochs : epochs.slice(0, FIRST_ROWS);
  const columns = epochColumns(inputs.price?.currency ?? 'usd');
  return (
    <div className="table-scroll">
      <table data-testid="epochs" className="epoch-table">
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.key} className={[c.num ? 'num' : '', c.key === 'when' ? 'epoch-when' : ''].filter(Boolean).join(' ') || undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((x) => (
            <EpochRow key={x.epochIndex} x={x} inputs={inputs} columns={columns.length} />
          ))}
        </tbody>
      </table>
      {epochs.length > FIRST_ROWS && (
        <button className="btn small-btn" onClick={() => setAll((a) => !a)} aria-expanded={all}>
          {all ? `Show the newest ${FIRST_ROWS}` : `Show all ${epochs.length} epochs`}
        </button>
      )}
    </div>
  );
}
