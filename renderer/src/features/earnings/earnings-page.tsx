import { useState } from 'react';
import type { EpochEarnings, LocalTokens } from '../../../../shared/earnings.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { EmptyState } from '../common/empty-state.tsx';
import { num } from '../common/format.ts';

function Tokens({ label, t }: { label: string; t: LocalTokens }) {
  return (
    <div className="card">
      <div className="muted small">{label}</div>
      <div style={{ fontSize: 20, fontWeight: 700 }}>{num(t.promptTokens + t.completionTokens)} tokens</div>
      <div className="muted small">
        {num(t.requests)} requests · {num(t.promptTokens)} prompt + {num(t.completionTokens)} completion
      </div>
    </div>
  );
}

/** Weight share per epoch as bars: the share of the miner emission the verified result assigns to this hotkey. */
function ShareBars({ epochs }: { epochs: EpochEarnings[] }) {
  const shown = [...epochs].reverse().slice(-30);
  const max = Math.max(0.0001, ...shown.map((e) => e.weightShare));
  return (
    // A fixed frame (room for 30 epochs) so one epoch is one slim bar, not a bar the size of the page.
    <svg viewBox="0 0 760 140" width="100%" height="140" preserveAspectRatio="xMinYMid meet" role="img" aria-label="weight share per epoch">
      {shown.map((e, i) => {
        const h = (e.weightShare / max) * 100;
        return (
          <g key={e.epochIndex}>
            <rect x={30 + i * 24} y={110 - h} width="16" height={Math.max(1, h)} rx="3" fill={e.gate.passed === false ? 'var(--bad)' : 'var(--accent)'}>
              <title>{`epoch ${e.epochIndex}: ${(e.weightShare * 100).toFixed(2)} %`}</title>
            </rect>
            <text x={38 + i * 24} y="126" fontSize="9" textAnchor="middle" fill="var(--muted)">
              {e.epochIndex}
            </text>
          </g>
        );
      })}
      <text x="0" y="14" fontSize="10" fill="var(--muted)">
        {(max * 100).toFixed(1)} %
      </text>
    </svg>
  );
}

export function EarningsPage() {
  const e = useSnapshot('earnings');
  const [busy, setBusy] = useState(false);
  const refresh = async () => {
    setBusy(true);
    await engineApi().invoke('earnings.refresh', null);
    setBusy(false);
  };
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Earnings</h1>
          <p>Projected (the weight share the verified epoch result gives your hotkey) and realised (what the chain emitted) are kept apart, each with its source.</p>
        </div>
        <button className="btn" onClick={() => void refresh()} disabled={busy}>
          {busy ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      {!e || !e.hotkey ? (
        <EmptyState title="No hotkey yet">Choose your hotkey in Setup: earnings are per hotkey.</EmptyState>
      ) : (
        <>
          {e.error && <div className="error-box">{e.error}</div>}
          <h3>Tokens served by this rig (local records)</h3>
          <div className="grid cols-3">
            <Tokens label="Last 24 hours" t={e.local.day} />
            <Tokens label="Last 7 days" t={e.local.week} />
            <Tokens label="All time" t={e.local.all} />
          </div>
          <section className="card stack" aria-label="Realised on chain">
            <h3>Realised on chain</h3>
            {e.onChain ? (
              <>
                <div style={{ fontSize: 22, fontWeight: 700 }} data-testid="emission-tao">
                  {e.onChain.emissionTao.toFixed(6)} τ at the last chain epoch
                </div>
                <div className="cmd">{e.onChain.arithmetic}</div>
                <div className="muted small">
                  uid {e.onChain.uid} · incentive {(e.onChain.incentive * 100).toFixed(2)} % · tempo {e.onChain.tempo} blocks · read at block {e.onChain.block}
                </div>
              </>
            ) : (
              <p className="muted">Not registered on the subnet, or the chain has not answered yet.</p>
            )}
          </section>
          <section className="card stack" aria-label="Epochs">
            <h3>Per epoch (projected, from the master-signed result)</h3>
            {e.epochs.length === 0 ? (
              <p className="muted">No verified epoch result yet.</p>
            ) : (
              <>
                <ShareBars epochs={e.epochs} />
                <table data-testid="epochs">
                  <thead>
                    <tr>
                      <th>Epoch</th>
                      <th>Window</th>
                      <th>Gates</th>
                      <th className="num">Weight (u16)</th>
                      <th className="num">Share</th>
                      <th>Published row</th>
                    </tr>
                  </thead>
                  <tbody>
                    {e.epochs.map((x) => (
                      <tr key={x.epochIndex}>
                        <td>#{x.epochIndex}</td>
                        <td className="small">{x.epochStart && x.epochEnd ? `${x.epochStart} → ${x.epochEnd}` : '—'}</td>
                        <td>
                          {x.gate.passed === null ? <span className="badge neutral">not stated</span> : x.gate.passed ? <span className="badge ok">passed</span> : <span className="badge bad">failed: {x.gate.reason ?? '?'}</span>}
                        </td>
                        <td className="num">{num(x.weight)}</td>
                        <td className="num">{(x.weightShare * 100).toFixed(2)} %</td>
                        <td className="mono small">{x.row ? JSON.stringify(x.row).slice(0, 140) : x.burn ? 'burn epoch: no billed traffic' : 'no row for this hotkey'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </>
            )}
          </section>
        </>
      )}
    </div>
  );
}
