import { useState } from 'react';
import type { RigAlert } from '../../../../shared/fleet.ts';
import { openRig, usePanelSnapshot, useScope, useSnapshot } from '../../stores/engine-store.ts';
import { useUi } from '../../stores/ui-store.ts';
import { notificationStatus } from './notification-status.ts';
import { useNow } from './use-now.ts';

// localStorage, not sessionStorage: a dismissal survives a reload and a new window of the same panel.
const SEEN_KEY = 'engy-dismissed-notifications';
const RIG_SEEN_KEY = 'engy-dismissed-rig-alerts';
const SHOWN = 3;
/** A cleared alert stays in the tray this long, so "cleared" is seen, then leaves by itself. */
const CLEARED_MS = 15_000;

function loadDismissed(): number[] {
  try {
    const v = JSON.parse(localStorage.getItem(SEEN_KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number').slice(-200) : [];
  } catch {
    return [];
  }
}

function loadRigDismissed(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(RIG_SEEN_KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(-200) : [];
  } catch {
    return [];
  }
}

const rigKey = (a: RigAlert) => `${a.rigId}:${a.id}`;

/** The open alerts of the fleet's rigs, named for their rig; each opens its rig's full panel. Not shown inside a rig's own panel (that shows the rig's alerts). */
function RigToasts({ room }: { room: number }) {
  const scoped = useScope((s) => s.rig);
  const alerts = usePanelSnapshot('fleet')?.alerts ?? [];
  const go = useUi((s) => s.go);
  const [dismissed, setDismissed] = useState<string[]>(loadRigDismissed);
  if (scoped || room <= 0) return null;
  const open = alerts.filter((a) => !dismissed.includes(rigKey(a)));
  const dismiss = (a: RigAlert) => {
    const next = [...dismissed, rigKey(a)].slice(-200);
    try {
      localStorage.setItem(RIG_SEEN_KEY, JSON.stringify(next));
    } catch {
      // as for the panel's own alerts
    }
    setDismissed(next);
  };
  return (
    <>
      {open.slice(0, room).map((a) => (
        <div key={rigKey(a)} className={`toast ${a.severity}`} role="status" data-testid="rig-toast">
          <div className="toast-text">
            <b>
              {a.rigName}: {a.severity === 'error' ? 'Error: ' : 'Warning: '}
              {a.title}
            </b>
            <div className="small">{a.body}</div>
          </div>
          <div className="toast-actions">
            <button
              className="btn small-btn"
              onClick={() => {
                openRig({ id: a.rigId, name: a.rigName });
                go('notifications');
              }}
            >
              Open {a.rigName}
            </button>
            <button className="btn small-btn" onClick={() => dismiss(a)} aria-label={`Dismiss: ${a.rigName}: ${a.title}`}>
              Dismiss
            </button>
          </div>
        </div>
      ))}
      {open.length > room && (
        <button className="btn small-btn toast-more" onClick={() => go('notifications')}>
          {open.length - room} more from the rigs on the Alerts page
        </button>
      )}
    </>
  );
}

/**
 * The alert tray: in the page's flow at the top of the content, never floating over it, so no alert
 * covers a button. An ongoing condition stays until it clears (the engine closes it) or is dismissed
 * (for good: the engine keeps one notification per condition, flapping included); its text follows the
 * engine's and its action opens the page that explains it. Every alert also stays on the Alerts page.
 */
export function Toasts() {
  const n = useSnapshot('notifications');
  const go = useUi((s) => s.go);
  const now = useNow(1000);
  const [dismissed, setDismissed] = useState<number[]>(loadDismissed);
  const open = (n?.recent ?? []).filter((x) => !dismissed.includes(x.id) && (x.active || now - (x.endedAt ?? 0) < CLEARED_MS));
  const fleetAlerts = usePanelSnapshot('fleet')?.alerts.length ?? 0;
  const rigAlerts = useScope((s) => s.rig) ? 0 : fleetAlerts;
  if (open.length === 0 && rigAlerts === 0) return null;
  const shown = open.slice(0, SHOWN);
  const dismiss = (id: number) => {
    const next = [...dismissed, id].slice(-200);
    try {
      localStorage.setItem(SEEN_KEY, JSON.stringify(next));
    } catch {
      // Storage full or refused: the dismissal still holds for this page's life.
    }
    setDismissed(next);
  };
  return (
    <section className="toasts" aria-label="Notifications">
      {shown.map((x) => (
        <div key={x.id} className={`toast ${x.active ? x.severity : 'cleared'}`} role="status">
          <div className="toast-text">
            <b>
              {x.active ? (x.severity === 'error' ? 'Error: ' : 'Warning: ') : 'Cleared: '}
              {x.title}
            </b>{' '}
            <span className="muted">· {notificationStatus(x, now)}</span>
            <div className="small">{x.body}</div>
          </div>
          <div className="toast-actions">
            {x.action && (
              <button className="btn small-btn" onClick={() => go(x.action!.page)}>
                {x.action.label}
              </button>
            )}
            <button className="btn small-btn" onClick={() => dismiss(x.id)} aria-label={`Dismiss: ${x.title}`}>
              Dismiss
            </button>
          </div>
        </div>
      ))}
      {open.length > SHOWN && (
        <button className="btn small-btn toast-more" onClick={() => go('notifications')}>
          {open.length - SHOWN} more on the Alerts page
        </button>
      )}
      <RigToasts room={SHOWN - shown.length} />
    </section>
  );
}
