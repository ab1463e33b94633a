import type { SettingsPatch, ThemePref } from '../../../../shared/settings.ts';
import { engineApi, useEngine, useSnapshot } from '../../stores/engine-store.ts';

function update(patch: SettingsPatch) {
  void engineApi().invoke('settings.update', patch);
}

export function SettingsPage() {
  const s = useSnapshot('settings');
  const info = useEngine((x) => x.info);
  if (!s) return <div className="card">Loading settings…</div>;
  const desktop = info?.shell === 'electron';
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Settings</h1>
          <p>Saved at once, in {info?.dataDir ?? 'the data folder'}.</p>
        </div>
      </div>
      <section className="card stack">
        <h2>Appearance</h2>
        <label className="toggle">
          Theme
          <select value={s.theme} onChange={(e) => update({ theme: e.target.value as ThemePref })}>
            <option value="system">Follow the system</option>
            <option value="dark">Dark</option>
            <option value="light">Light</option>
          </select>
        </label>
      </section>
      <section className="card stack">
        <h2>Network</h2>
        <dl className="kv">
          <dt>Profile</dt>
          <dd>{s.network === 'simulated' ? 'Simulated network (demo): nothing is real' : 'Mainnet (finney, subnet 53)'}</dd>
          <dt>Gateway</dt>
          <dd className="mono">{s.mining.gatewayUrl}</dd>
          <dt>Chain</dt>
          <dd className="mono">{s.validating.chainUrl}</dd>
          <dt>Provider</dt>
          <dd className="mono">{s.validating.providerUrl}</dd>
        </dl>
      </section>
      <section className="card stack">
        <h2>Desktop</h2>
        {!desktop && <p className="muted small">These apply to the desktop app; this is the headless engine in a browser.</p>}
        {(
          [
            ['runAtLogin', 'Start engy panel when I log in (off unless you turn it on)'],
            ['keepRunningOnClose', 'Keep mining/validating when the window is closed'],
            ['minimizeToTray', 'Minimise to the tray'],
            ['autoUpdate', 'Install updates automatically (never while requests are in flight)'],
          ] as const
        ).map(([k, label]) => (
          <label key={k} className="toggle">
            <input type="checkbox" checked={s.desktop[k]} onChange={(e) => update({ desktop: { [k]: e.target.checked } })} />
            {label}
          </label>
        ))}
      </section>
    </div>
  );
}
