import { NOTIFICATION_KINDS, type NotificationKind, type Settings, type SettingsPatch, type ThemePref } from '../../../../shared/settings.ts';
import { useEngine, useScope, useSnapshot } from '../../stores/engine-store.ts';
import { ActionError, useAction } from '../common/use-action.tsx';
import { RigSettings } from './rig-settings.tsx';
import { ProfitSettings } from './profit-settings.tsx';
import { UpdateCard } from './update-card.tsx';
import { AlertWebhookCard } from './alert-webhook-card.tsx';
import { RigsCard } from '../fleet/rigs-card.tsx';

const KIND_LABEL: Record<NotificationKind, string> = {
  'miner-offline': 'Miner offline',
  'miner-pulled': 'Miner pulled or denied by the gateway',
  'serve-crashed': 'Serve crashed',
  'serve-stalled': 'Serve stalled',
  'gate-at-risk': 'Gate forecast at risk',
  'validator-stalled': 'Validator stalled',
  'validator-failing': 'Weight submissions failing',
  'activity-cutoff-near': 'Activity cutoff near',
  'data-recovered': 'Damaged data replaced at start',
  'storage-failing': 'History not being saved (disk full)',
  deregistered: 'Hotkey no longer registered',
  'epoch-failed': 'A verified epoch scored nothing (gate failed)',
};

const DESKTOP_TOGGLES = [
  ['runAtLogin', 'Start engy panel when I log in (off unless you turn it on)'],
  ['keepRunningOnClose', 'Keep mining/validating when the window is closed'],
  ['minimizeToTray', 'Minimise to the tray'],
  ['autoUpdate', 'Install updates automatically (never while requests are in flight)'],
] as const;

/** Login, tray and window toggles exist only in the desktop app: a browser on the headless engine gets the sentence, not switches that do nothing. */
export function DesktopToggles({ s, desktop, update }: { s: Settings; desktop: boolean; update: (patch: SettingsPatch) => void }) {
  return (
    <section className="card stack" aria-labelledby="desktop-h" data-testid="desktop-settings">
      <h2 id="desktop-h">Desktop</h2>
      {desktop ? (
        DESKTOP_TOGGLES.map(([k, label]) => (
          <label key={k} className="toggle">
            <input type="checkbox" checked={s.desktop[k]} onChange={(e) => update({ desktop: { [k]: e.target.checked } })} />
            {label}
          </label>
        ))
      ) : (
        <p className="muted small">
          Start at login, the tray, closing the window and automatic updates are settings of the desktop app. This page is the headless engine in a browser: it runs until its service or process is
          stopped.
        </p>
      )}
    </section>
  );
}

export function SettingsPage() {
  const s = useSnapshot('settings');
  const info = useEngine((x) => x.info);
  // A rig's full panel shows its settings; the rigs themselves are this panel's (Settings > Rigs here).
  const scopedRig = useScope((x) => x.rig);
  const notifications = useSnapshot('notifications');
  const { invoke, error } = useAction();
  const update = (patch: SettingsPatch) => void invoke('settings.update', patch);
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
      <ActionError error={error} />
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
      <RigSettings s={s} />
      {!scopedRig && <RigsCard />}
      <ProfitSettings s={s} />
      <section className="card stack">
        <h2>Notifications</h2>
        {NOTIFICATION_KINDS.map((k) => (
          <label key={k} className="toggle">
            <input
              type="checkbox"
              checked={!s.mutedNotifications.includes(k)}
              onChange={(e) => update({ mutedNotifications: e.target.checked ? s.mutedNotifications.filter((x) => x !== k) : [...s.mutedNotifications, k] })}
            />
            {KIND_LABEL[k]}
          </label>
        ))}
        <AlertWebhookCard status={notifications?.webhook} />
      </section>
      <DesktopToggles s={s} desktop={desktop} update={update} />
      <UpdateCard desktop={desktop} />
    </div>
  );
}
