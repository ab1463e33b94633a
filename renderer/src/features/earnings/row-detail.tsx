import type { EpochEarnings } from '../../../../shared/earnings.ts';

/** A published value as text: numbers grouped, nested objects as compact JSON (field names are the provider's, shown as given). */
function valueText(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return Number.isInteger(v) ? v.toLocaleString('en-US') : String(v);
  if (typeof v === 'string' || typeof v === 'boolean') return String(v);
  const s = JSON.stringify(v);
  return s.length > 400 ? `${s.slice(0, 400)}…` : s;
}

/** The epoch's published row and the τ arithmetic, folded under the epoch number. */
export function RowDetail({ e }: { e: EpochEarnings }) {
  return (
    <details className="expander">
      <summary className="small">details</summary>
      <dl className="detail-grid">
        <dt>digest</dt>
        <dd className="mono">{e.digest}</dd>
        <dt>weight</dt>
        <dd>{e.weight.toLocaleString('en-US')} of 65,535</dd>
        <dt>projected</dt>
        <dd>{e.projectedNote}</dd>
        <dt>realised</dt>
        <dd>{e.realisedNote}</dd>
        {e.row ? (
          Object.entries(e.row).map(([k, v]) => (
            <div key={k} style={{ display: 'contents' }}>
              <dt>{k}</dt>
              <dd>{valueText(v)}</dd>
            </div>
          ))
        ) : (
          <>
            <dt>row</dt>
            <dd>{e.burn ? 'burn epoch: no billed traffic' : 'no row for this hotkey'}</dd>
          </>
        )}
      </dl>
    </details>
  );
}
