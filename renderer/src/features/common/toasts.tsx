import { useState } from 'react';
import { useSnapshot } from '../../stores/engine-store.ts';
import { useUi } from '../../stores/ui-store.ts';
import { notificationStatus } from './notification-status.ts';
import { useNow } from './use-now.ts';

const SEEN_KEY = 'engy-dismissed-notifications';

/**
 * In-page notifications: an ongoing condition stays until it clears or is dismissed, its text follows
 * the engine's (never a stale copy), and its action opens the page that explains it. Every
 * notification also stays on the Alerts page; the desktop app raises OS notifications as well.
 */
export function Toasts() {
  const n = useSnapshot('notifications');
  const go = useUi((s) => s.go);
  const now = useNow(1000);
  const [dismissed, setDismissed] = useState<number[]>(() => {
    try {
      const v = JSON.parse(sessionStorage.getItem(SEEN_KEY) ?? '[]') as unknown;
      return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number').slice(-200) : [];
    } catch {
      return [];
    }
  });
  // Ongoing ones, and cleared ones for 15 s after they cleared (so "cleared" is seen).
  const shown = (n?.recent ?? []).filter((x) => !dismissed.includes(x.id) && (x.active || now - (x.endedAt ?? 0) < 15_000)).slice(0, 3);
  if (shown.length === 0) return null;
  const dismiss = (id: number) => {
    const next = [...dismissed, id].slice(-200);
    sessionStorage.setItem(SEEN_KEY, JSON.stringify(next));
    setDismissed(next);
  };
  return (
    <div className="toasts" role="region" aria-label="Notifications">
      {shown.map((x) => (
        <div key={x.id} className={`card toast ${x.active ? x.severity : 'cleared'}`} role="status">
          <div className="spread">
            <b>
              {x.active ? (x.severity === 'error' ? 'Error: ' : 'Warning: ') : 'Cleared: '}
              {x.title}
            </b>
            <button className="btn small-btn" onClick={() => dismiss(x.id)} aria-label={`Dismiss: ${x.title}`}>
              Dismiss
            </button>
          </div>
          <div className="small">{x.body}</div>
          <div className="spread small">
            <span className="muted">{notificationStatus(x, now)}</span>
            {x.action && (
              <button className="btn small-btn" onClick={() => go(x.action!.page)}>
                {x.action.label}
              </button>
            )}
          </div>
        </div>
      ))}
    </div>
  );
}
