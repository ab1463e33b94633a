// The Fleet page's body (fleet-page.tsx binds it to the engine store). Every rig this panel reaches over SSH, one row each (docs/fleet.md): what it does, its figures against
// the gates, its τ, its open alerts; totals across the fleet and each rig's share of the last 24 h's τ. Start,
// stop and drain act on a selection after a confirmation that names the rigs.
import { useState } from 'react';
import type { FleetEarner, FleetSnapshot, RigAction, RigActionResult, RigRow } from '../../../../shared/fleet.ts';
import { windowLabel } from '../../../../shared/miner.ts';
import { EmptyState } from '../common/empty-state.tsx';
import { clock, duration, tau } from '../common/format.ts';
import { ActionError, useAction } from '../common/use-action.tsx';
import { useNow } from '../common/use-now.ts';

const ACTION_WORDS: Record<RigAction, string> = { start: 'Start', stop: 'Stop', drain: 'Drain', 'start-engine': 'Start engine on' };

const ms = (v: number | null) => (v === null ? '—' : v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`);
const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)} %`);

function stateText(r: RigRow, now: number): string {
  if (r.link === 'unreachable' || r.link === 'engine-down') return `unreachable since ${clock(r.unreachableSince ?? now, now)} (${duration(now - (r.unreachableSince ?? now))})`;
  if (r.link === 'host-key-unknown') return 'host key to accept';
  if (r.link === 'host-key-changed') return 'host key CHANGED';
  if (r.link === 'incompatible') return 'other version';
  if (r.link === 'connecting') return 'connecting';
  return r.activity;
}

function gateClass(v: number | null, gate: number | undefined, lowerIsBetter = true): string {
  if (v === null || gate === undefined) return '';
  return (lowerIsBetter ? v <= gate : v >= gate) ? 'ok-text' : 'bad-text';
}

/** τ is earned per hotkey: rigs of one hotkey share one bar (τ is paid to the hotkey, not to a box), a rig of unknown hotkey has its own. */
function ShareChart({ earners, total }: { earners: FleetEarner[]; total: number }) {
  return (
    <figure className="stack" aria-labelledby="share-h">
      <figcaption id="share-h" className="muted small">
        Each hotkey's share of the projected τ of the last 24 h ({tau(total)} in all); rigs mining for one hotkey share its bar
      </figcaption>
      {earners.map((e) => {
        const share = total > 0 && e.todayTao !== null ? e.todayTao / total : 0;
        const names = e.rigs.join(', ');
        return (
          <div key={e.rigs.join('\n')} className="share-row" data-testid={`share-${e.rigs.join('+')}`}>
            <span className="share-name" title={e.rigs.length > 1 ? `${names}: one hotkey, counted once` : names}>
              {names}
              {e.rigs.length > 1 && <span className="muted"> (one hotkey)</span>}
            </span>
            <span className="share-bar" aria-hidden="true">
              <span style={{ width: `${(share * 100).toFixed(1)}%` }} />
            </span>
            <span className="small">
              {tau(e.todayTao)} · {(share * 100).toFixed(1)} %
            </span>
          </div>
        );
      })}
    </figure>
  );
}

/** The badge on a rig whose hotkey another rig of the fleet also mines for. */
function SharedHotkey({ r }: { r: RigRow }) {
  const s = r.sharedHotkey;
  if (!s) return null;
  const title = s.counted
    ? `Same hotkey as ${s.with.join(', ')}: their τ is this hotkey's τ, counted once in the totals (from this rig).`
    : `Same hotkey as ${s.with.join(', ')}: counted once in the totals (from ${s.countedFrom}), not again for this rig.`;
  return (
    <span className="badge shared-hotkey" title={title} data-testid={`rig-shared-${r.name}`}>
      same hotkey as{' '}
      {s.with.map((n, i) => (
        <span key={n} className="nowrap">
          {n}
          {i < s.with.length - 1 ? ', ' : ''}
        </span>
      ))}
      {s.counted ? '' : ': counted once'}
    </span>
  );
}

/** The page on a given snapshot (tests render it without an engine); `openSettings` goes to Settings > Rigs, `openRig` to a rig's full panel. */
export function FleetView({ fleet, openSettings, openRig }: { fleet: FleetSnapshot | undefined; openSettings: () => void; openRig?: (r: RigRow) => void }) {
  const now = useNow(1000);
  const [selected, setSelected] = useState<string[]>([]);
  const [confirm, setConfirm] = useState<RigAction | null>(null);
  const [results, setResults] = useState<RigActionResult[]>([]);
  const { invoke, error, busy } = useAction();
  if (!fleet || fleet.rigs.length === 0) {
    return (
      <div className="page stack">
        <h1>Fleet</h1>
        <EmptyState title="No rigs yet">
          Add your rigs in{' '}
          <button className="link" onClick={openSettings}>
            Settings &gt; Rigs
          </button>{' '}
          as user@host: the panel reaches each over SSH with your keys, and nothing faces the LAN.
        </EmptyState>
      </div>
    );
  }
  const rigs = fleet.rigs;
  const chosen = rigs.filter((r) => selected.includes(r.id));
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const run = async (action: RigAction) => {
    setConfirm(null);
    const r = await invoke('fleet.control', { ids: chosen.map((c) => c.id), action });
    if (r.ok) setResults(r.value);
  };
  const t = fleet.totals;
  const win = rigs.find((r) => r.windowMs !== null)?.windowMs ?? null;
  return (
    <div className="page stack">
      <h1>Fleet</h1>
      <div className="grid cols-4">
        <div className="card stat" data-testid="fleet-today">
          <div className="muted small">τ last 24 h (projected)</div>
          <div className="stat-value">{tau(t.todayTao)}</div>
          {t.earners < t.rigs && (
            <div className="muted small" data-testid="fleet-earners">
              {t.earners} hotkey{t.earners === 1 ? '' : 's'} over {t.rigs} rigs, each counted once
            </div>
          )}
        </div>
        <div className="card stat" data-testid="fleet-week">
          <div className="muted small">τ last 7 days (projected)</div>
          <div className="stat-value">{tau(t.weekTao)}</div>
        </div>
        <div className="card stat" data-testid="fleet-online">
          <div className="muted small">rigs online</div>
          <div className="stat-value">
            {t.online} of {t.rigs}
          </div>
        </div>
        <div className="card stat" data-testid="fleet-throughput">
          <div className="muted small">throughput{win !== null ? ` (${windowLabel(win)})` : ''}</div>
          <div className="stat-value">{Math.round(t.tokensPerSecond)} tok/s</div>
          <div className="muted small">
            {t.openAlerts} open alert{t.openAlerts === 1 ? '' : 's'}
          </div>
        </div>
      </div>
      <section className="card stack" aria-labelledby="rigs-h">
        <h2 id="rigs-h">Rigs</h2>
        <div className="row" role="toolbar" aria-label="Act on the selected rigs">
          {(['start', 'stop', 'drain', 'start-engine'] as const).map((a) => (
            <button key={a} className="btn" disabled={busy || chosen.length === 0} onClick={() => setConfirm(a)}>
              {ACTION_WORDS[a]}
              {a === 'start-engine' ? '' : ' mining'}
            </button>
          ))}
          <span className="muted small">{chosen.length === 0 ? 'Select rigs to act on them.' : `${chosen.length} selected`}</span>
        </div>
        {confirm && (
          <div className="confirm stack" role="alertdialog" aria-labelledby="confirm-h" data-testid="fleet-confirm">
            <b id="confirm-h">
              {ACTION_WORDS[confirm]} {confirm === 'start-engine' ? '' : 'mining on '}
              {chosen.map((c) => c.name).join(', ')}?
            </b>
            {confirm === 'stop' && <span className="small">Requests in flight are cancelled; Drain lets them finish first.</span>}
            <div className="row">
              <button className="btn primary" onClick={() => void run(confirm)}>
                {ACTION_WORDS[confirm]} {chosen.length} rig{chosen.length === 1 ? '' : 's'}
              </button>
              <button className="btn" onClick={() => setConfirm(null)}>
                Cancel
              </button>
            </div>
          </div>
        )}
        <ActionError error={error} />
        {results.length > 0 && (
          <ul className="small" data-testid="fleet-results">
            {results.map((r) => (
              <li key={r.id} className={r.ok ? '' : 'bad-text'}>
                {r.message}
              </li>
            ))}
          </ul>
        )}
        {/* Eight columns that fit the card at 1280 px: role, uid and GPUs fold under the rig's name, the two
            latencies share a cell, the epoch's τ sits under the 24 h τ. Below 900 px throughput and acceptance
            fold under the state and the latencies (styles.css), so nothing scrolls sideways at 800 px. */}
        <div className="table-scroll">
          <table data-testid="fleet-table" className="fleet-table">
            <thead>
              <tr>
                <th scope="col">
                  <span className="sr-only">Select</span>
                </th>
                <th scope="col">Rig</th>
                <th scope="col">State</th>
                <th scope="col" className="fleet-wide">
                  Throughput
                </th>
                <th scope="col">p99 / gate</th>
                <th scope="col" className="fleet-wide">
                  Acceptance
                </th>
                <th scope="col">τ 24 h · epoch</th>
                <th scope="col">Alerts</th>
              </tr>
            </thead>
            <tbody>
              {rigs.map((r) => {
                const gpus = r.gpus.length === 0 ? null : r.gpus.map((g) => `${g.name}${g.temperatureC === null ? '' : ` ${g.temperatureC} °C`}`).join(', ');
                const throughput = r.tokensPerSecond === null ? '—' : `${Math.round(r.tokensPerSecond)} tok/s`;
                const acceptance = (
                  <span className={gateClass(r.acceptance, r.gates?.acceptance, false)}>
                    {pct(r.acceptance)} / {pct(r.gates?.acceptance ?? null)}
                  </span>
                );
                return (
                  <tr key={r.id} data-testid={`rig-row-${r.name}`} data-link={r.link}>
                    <td>
                      <input type="checkbox" aria-label={`Select ${r.name}`} checked={selected.includes(r.id)} onChange={() => toggle(r.id)} />
                    </td>
                    <th scope="row" title={r.target} className="fleet-rig">
                      {openRig && r.link === 'online' ? (
                        <button className="rig-open" onClick={() => openRig(r)} aria-label={`Open ${r.name}'s full panel`} data-testid={`rig-open-${r.name}`}>
                          {r.name}
                        </button>
                      ) : (
                        r.name
                      )}
                      <div className="muted small">
                        {r.role ?? 'no role'} · uid {r.uid ?? '—'}
                      </div>
                      {gpus !== null && (
                        <div className="muted small clamp-2" title={gpus}>
                          {gpus}
                        </div>
                      )}
                    </th>
                    <td data-testid={`rig-state-${r.name}`} className="fleet-state">
                      <span className={r.link === 'online' ? '' : 'bad-text'}>{stateText(r, now)}</span>
                      {r.link !== 'online' && (
                        <div className="muted small clamp-2" title={r.detail} data-testid={`rig-detail-${r.name}`}>
                          {r.detail}
                        </div>
                      )}
                      {r.refused > 0 && (
                        <div className="muted small">
                          {r.refused} malformed message{r.refused === 1 ? '' : 's'} refused
                        </div>
                      )}
                      <div className="small fleet-narrow">{throughput}</div>
                    </td>
                    <td className="fleet-wide nowrap">{throughput}</td>
                    <td className="nowrap small">
                      <div className={gateClass(r.ttftP99Ms, r.gates?.ttftP99Ms)}>
                        TTFT {ms(r.ttftP99Ms)} / {ms(r.gates?.ttftP99Ms ?? null)}
                      </div>
                      <div className={gateClass(r.tpotP99Ms, r.gates?.tpotP99Ms)}>
                        TPOT {ms(r.tpotP99Ms)} / {ms(r.gates?.tpotP99Ms ?? null)}
                      </div>
                      <div className="fleet-narrow">accept. {acceptance}</div>
                    </td>
                    <td className="fleet-wide nowrap">{acceptance}</td>
                    <td className="fleet-tau">
                      <div className="nowrap" data-testid={`rig-today-${r.name}`}>
                        {tau(r.todayTao)}
                      </div>
                      <div className="muted small nowrap">epoch {tau(r.epochTao)}</div>
                      <SharedHotkey r={r} />
                    </td>
                    <td>{r.openAlerts}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <p className="muted small">
          Click an online rig's name to open its full panel (every page, scoped to it). Figures over each rig's {win !== null ? windowLabel(win) : 'stats window'}; gates from each rig's model. τ is
          projected from the signed epoch results each rig reads; a rig that is away keeps its last τ. τ is earned per hotkey: rigs mining for one hotkey each show that hotkey's τ, and the totals
          count it once (from the first of them).
        </p>
      </section>
      <section className="card stack" aria-labelledby="chart-h">
        <h2 id="chart-h">
          Share of the last 24 h's <span className="tau">τ</span>
        </h2>
        <ShareChart earners={fleet.earners} total={t.todayTao} />
      </section>
    </div>
  );
}
