import { Component, lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { closeRig, useEngine, usePanelSnapshot, useScope, useSnapshot } from '../stores/engine-store.ts';
import { RigBanner } from '../features/fleet/rig-banner.tsx';
import { PAGES, useUi, type Page } from '../stores/ui-store.ts';
import { PageIcon } from './icons.tsx';
import { SetupPage } from '../features/setup/setup-page.tsx';
import { LogsPage } from '../features/logs/logs-page.tsx';
import { SettingsPage } from '../features/settings/settings-page.tsx';
import { MinePage } from '../features/mine/mine-page.tsx';
import { ValidatePage } from '../features/validate/validate-page.tsx';
import { EarningsPage } from '../features/earnings/earnings-page.tsx';
import { HistoryPage } from '../features/history/history-page.tsx';
import { Toasts } from '../features/common/toasts.tsx';
import { ConnectionBanner } from '../features/common/connection-banner.tsx';
import { Loading } from '../features/common/loading.tsx';
import { NotificationsPage } from '../features/notifications/notifications-page.tsx';
import { tabTitle } from './tab-title.ts';

/** The Fleet page loads when first opened: most panels hold one rig, and every visit's bundle has a budget. */
const FleetPage = lazy(() => import('../features/fleet/fleet-page.tsx').then((m) => ({ default: m.FleetPage })));
import { SUBNET_NETUID } from '../../../shared/network.ts';
import { fleetPhase } from '../../../shared/miner-fleet.ts';

const LABELS: Record<Page, string> = {
  setup: 'Setup',
  mine: 'Mine',
  validate: 'Validate',
  earnings: 'Earnings',
  fleet: 'Fleet',
  history: 'History',
  notifications: 'Alerts',
  logs: 'Logs',
  settings: 'Settings',
};

function PageBody({ page }: { page: Page }) {
  switch (page) {
    case 'setup':
      return <SetupPage />;
    case 'logs':
      return <LogsPage />;
    case 'settings':
      return <SettingsPage />;
    case 'mine':
      return <MinePage />;
    case 'validate':
      return <ValidatePage />;
    case 'earnings':
      return <EarningsPage />;
    case 'history':
      return <HistoryPage />;
    case 'fleet':
      return (
        <Suspense fallback={<Loading what="the Fleet page" />}>
          <FleetPage />
        </Suspense>
      );
    case 'notifications':
      return <NotificationsPage />;
  }
}

/** Each page has its own boundary: a bug in one page never blanks the whole panel. */
class PageBoundary extends Component<{ children: ReactNode; page: Page }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override componentDidUpdate(prev: { page: Page }) {
    if (prev.page !== this.props.page && this.state.error) this.setState({ error: null });
  }
  override render() {
    if (this.state.error) {
      return (
        <div className="error-box" role="alert">
          <b>This page failed to render.</b> {this.state.error.message}. Other pages still work; the Logs page and a diagnostics export help support.
        </div>
      );
    }
    return this.props.children;
  }
}

function useTheme() {
  // This panel's theme, whichever rig is open: a rig's own setting never repaints the panel.
  const settings = usePanelSnapshot('settings');
  useEffect(() => {
    const pref = settings?.theme ?? 'system';
    const apply = () => {
      const dark = pref === 'dark' || (pref === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
      document.documentElement.dataset.theme = dark ? 'dark' : 'light';
    };
    apply();
    const mq = window.matchMedia('(prefers-color-scheme: dark)');
    mq.addEventListener('change', apply);
    return () => mq.removeEventListener('change', apply);
  }, [settings?.theme]);
}

/** The browser tab (and window) title says the state at a glance: "Mining - active · engy panel". */
function useTabTitle(page: Page) {
  const miners = useSnapshot('miners');
  const validator = useSnapshot('validator');
  const connection = useEngine((s) => s.connection);
  const title = tabTitle({ page: LABELS[page], connection, miner: miners && miners.length > 0 ? fleetPhase(miners) : null, validator: validator?.status ?? null });
  useEffect(() => {
    document.title = title;
  }, [title]);
}

export function App() {
  const page = useUi((s) => s.page);
  const go = useUi((s) => s.go);
  const connection = useEngine((s) => s.connection);
  const info = useEngine((s) => s.info);
  const settings = useSnapshot('settings');
  // The engine replays every snapshot before it answers app.info: with both here, pages never see a false empty state.
  const ready = info !== null && settings !== undefined;
  const notifications = useSnapshot('notifications');
  const [sidebarOpen, setSidebarOpen] = useState(false);
  useTheme();
  useTabTitle(page);
  const simulated = settings?.network === 'simulated';
  const fleet = useSnapshot('fleet');
  const scoped = useScope((s) => s.rig);
  // Open alerts here and on every rig of the fleet (those are tagged with their rig on the Alerts page).
  const alerts = (notifications?.recent.filter((n) => n.active).length ?? 0) + (fleet?.alerts.length ?? 0);
  // The Fleet is this panel's: from a rig's full panel, its nav item goes back to it.
  const goPage = (p: Page) => {
    if (scoped && p === 'fleet') closeRig();
    go(p);
  };
  return (
    <div className={`shell${simulated ? ' with-banner' : ''}${sidebarOpen ? ' sidebar-open' : ''}`}>
      {simulated && (
        <div className="banner-sim" role="status">
          SIMULATED NETWORK — nothing here touches mainnet, earns TAO or is real
        </div>
      )}
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <svg width="28" height="28" viewBox="0 0 64 64" aria-hidden="true">
            <rect width="64" height="64" rx="14" fill="#0f172a" />
            <path d="M18 20h28M18 32h20M18 44h28" stroke="#34d399" strokeWidth="6" strokeLinecap="round" />
          </svg>
          <div>
            engy panel
            <small>subnet {SUBNET_NETUID} · verified inference</small>
          </div>
        </div>
        <button className="nav-item sidebar-toggle" aria-expanded={sidebarOpen} aria-label={sidebarOpen ? 'Collapse the menu' : 'Expand the menu'} onClick={() => setSidebarOpen((o) => !o)}>
          <span aria-hidden="true">{sidebarOpen ? '«' : '»'}</span>
        </button>
        {PAGES.map((p) => (
          <button key={p} className="nav-item" aria-current={page === p ? 'page' : undefined} onClick={() => goPage(p)} title={LABELS[p]}>
            <PageIcon page={p} />
            <span className="nav-label">
              {LABELS[p]}
              {p === 'notifications' && alerts > 0 ? ` (${alerts} active)` : ''}
            </span>
          </button>
        ))}
        <div className="sidebar-foot">
          <span
            className={`badge ${connection === 'open' ? 'ok' : connection === 'connecting' ? 'warn' : 'bad'}`}
            data-testid="connection"
            title={`engine ${connection === 'open' ? 'connected' : connection === 'connecting' ? 'connecting' : 'away'}`}
          >
            <span className="conn-what">engine </span>
            <span className="conn-state">{connection === 'open' ? 'connected' : connection === 'connecting' ? 'connecting' : 'away'}</span>
          </span>
          {info && (
            <span>
              v{info.version} · {info.shell}
            </span>
          )}
        </div>
      </nav>
      <main className="main" id="main">
        {scoped && <RigBanner rig={scoped} />}
        <ConnectionBanner />
        <Toasts />
        <fieldset className="engine-gate" disabled={connection !== 'open'}>
          <PageBoundary page={page}>{ready ? <PageBody page={page} /> : <Loading what="the engine's state" />}</PageBoundary>
        </fieldset>
      </main>
    </div>
  );
}
