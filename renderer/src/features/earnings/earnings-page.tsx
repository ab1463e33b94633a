import { ProfitCard } from './profit-card.tsx';
import { useState } from 'react';
import type { EarningsSnapshot, LocalTokens, SourceHealth, TauTotal } from '../../../../shared/earnings.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { EpochBars } from '../charts/epoch-bars.tsx';
import { EmptyState } from '../common/empty-state.tsx';
import { ago, clock, duration, num, tau } from '../common/format.ts';
import { Term } from '../common/term.tsx';
import { useNow } from '../common/use-now.ts';
import { EpochTable } from './epoch-table.tsx';
import { SUBNET_NETUID } from '../../../../shared/network.ts';
import { measuredPowerW } from '../../../../shared/profit.ts';

const tauAxis = (v: number) => (Math.abs(v) >= 1000 ? v.toLocaleString('en-US', { maximumFractionDigits: 0 }) : Math.abs(v) >= 1 ? v.toFixed(2) : v === 0 ? '0' : v.toPrecision(2));
const tokens = (t: LocalTokens) => `${num(t.promptTokens + t.completionTokens)} tokens`;

function Total({ label, t, local }: { label: string; t: TauTotal; local: LocalTokens }) {
  return (
    <div className="card stat" data-testid={`tau-total-${label}`}>
      <div className="muted small">{label}</div>
      <div className="stat-value">{tau(t.projectedTao)}</div>
      <div className="small">projected · {tau(t.realisedTao)} realised</div>
      <div className="muted small">
        {t.epochs} epoch{t.epochs === 1 ? '' : 's'} ended · {tokens(local)} served ({num(local.requests)} requests)
      </div>
    </div>
  );
}

function Health({ name, h, now }: { name: string; h: SourceHealth; now: number }) {
  const text = h.ok === null ? 'not read yet' : h.ok ? 'reachable' : `unreachable for ${duration(now - (h.downSince ?? now))}${h.error ? ` (${h.error})` : ''}`;
  return (
    <span className={`badge ${h.ok === null ? 'neutral' : h.ok ? 'ok' : 'bad'}`}>
      {name}: {text}
    </span>
  );
}

function Gaps({ e, now }: { e: EarningsSnapshot; now: number }) {
  if (e.gaps.length === 0)
    return (
      <p className="small muted">
        No missing epoch between #{e.epochs[e.epochs.length - 1]?.epochIndex} and #{e.epochs[0]?.epochIndex}.
      </p>
    );
  return (
    <ul className="bar-note" data-testid="epoch-gaps">
      {e.gaps.map((g) => (
        <li key={g.epochIndex}>
          <b>Epoch #{g.epochIndex} missing:</b> {g.reason}
          {g.outage ? ` at ${clock(g.outage.from)}, lasting ${duration((g.outage.to ?? now) - g.outage.from)}${g.outage.to === null ? ' so far' : ''}` : ''}.
        </li>
      ))}
    </ul>
  );
}

/** Why there is no on-chain figure: not read yet, never registered, or registered once and pruned since. */
export function NotOnChain({ registration: r }: { registration: EarningsSnapshot['registration'] }) {
  if (r === null || r.uid !== null) return <p className="muted">The chain has not answered yet for this hotkey.</p>;
  if (r.lost === null) return <p className="muted">This hotkey is not registered on subnet {SUBNET_NETUID}: register it in Setup to start earning.</p>;
  return (
    <p className="error-box" role="alert">
      This hotkey is no longer registered on subnet {SUBNET_NETUID}
      {r.lost.uid !== null ? ` (it had uid ${r.lost.uid})` : ''}: another registration took its slot. Nothing is earned until it is registered again in Setup.
    </p>
  );
}

export function EarningsPage() {
  const e = useSnapshot('earnings');
  const price = useSnapshot('price');
  const serve = useSnapshot('serve');
  const settings = useSnapshot('settings');
  const now = useNow(1000);
  const [busy, setBusy] = useState(false);
  const refresh = async () => {
    setBusy(true);
    await engineApi().invoke('earnings.refresh', null);
    setBusy(false);
  };
  const bars = (e?.epochs ?? []).map((x) => ({ index: x.epochIndex, projected: x.projectedTao, realised: x.realisedTao })).reverse();
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Earnings</h1>
          <p>
            In τ, per <Term k="epoch">epoch</Term>: <b>projected</b> from the master-signed epoch result (your weight share of the miner emission over the window) and <b>realised</b> from the chain
            (what it emitted to your uid while those weights applied). The two are never added together.
          </p>
        </div>
        <button className="btn" onClick={() => void refresh()} disabled={busy}>
          {busy ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      {!e || !e.hotkey ? (
        <EmptyState title="No hotkey yet">Choose your hotkey in Setup: earnings are per hotkey.</EmptyState>
      ) : (
        <>
          <div className="row small" data-testid="earnings-sources">
            <Health name="Provider" h={e.sources.provider} now={now} />
            <Health name="Chain" h={e.sources.chain} now={now} />
            <span className="muted">{e.updatedAt ? `updated ${ago(e.updatedAt, now)}` : 'not refreshed yet'}</span>
          </div>
          {e.error && <div className="error-box">{e.error}</div>}
          <section className="stack" aria-labelledby="totals-h">
            <h2 id="totals-h">Totals</h2>
            <div className="grid cols-4">
              <Total label="Last 24 h" t={e.totals.day} local={e.local.day} />
              <Total label="Last 7 days" t={e.totals.week} local={e.local.week} />
              <Total label="All time" t={e.totals.all} local={e.local.all} />
            </div>
          </section>
          {/* Estimates apart from the real totals: per day, in the user's currency, net of electricity. */}
          <ProfitCard />
          <section className="card stack" aria-labelledby="per-epoch-h">
            <h2 id="per-epoch-h">
              <span className="tau">τ</span> per epoch
            </h2>
            {e.epochs.length === 0 ? (
              <p className="muted">No verified epoch result yet. The provider publishes each epoch's result when it closes.</p>
            ) : (
              <>
                <EpochBars bars={bars} gaps={e.gaps.map((g) => g.epochIndex)} format={tauAxis} />
                <Gaps e={e} now={now} />
                <p className="small muted">
                  Weight share: your <Term k="u16">u16</Term> weight / 65,535 in the verified vector. Money per epoch: projected τ at the τ price now, minus the GPUs' electricity at their draw now
                  over the epoch's window. Open an epoch's details for the rest: weight share, realised τ's arithmetic, the provider's billed tokens (paid traffic) beside the tokens served here (every
                  request this rig answered in the window, probes included), and the published row.
                </p>
                <EpochTable epochs={e.epochs} inputs={{ price: price ?? null, powerW: measuredPowerW(serve?.gpus), kwhPrice: settings?.profit.kwhPrice ?? null }} />
              </>
            )}
          </section>
          <section className="card stack" aria-labelledby="chain-h">
            <h2 id="chain-h">Realised on chain, last chain epoch</h2>
            {e.onChain ? (
              <>
                <div className="stat-value" data-testid="emission-tao">
                  {tau(e.onChain.emissionTao)} at the last chain epoch
                </div>
                <div className="cmd">{e.onChain.arithmetic}</div>
                <div className="muted small">
                  uid {e.onChain.uid} · incentive {(e.onChain.incentive * 100).toFixed(2)} % · tempo {e.onChain.tempo} blocks · read at block {num(e.onChain.block)}
                </div>
              </>
            ) : (
              <NotOnChain registration={e.registration} />
            )}
          </section>
        </>
      )}
    </div>
  );
}
