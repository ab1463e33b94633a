import { useState } from 'react';
import { useSnapshot } from '../../stores/engine-store.ts';
import { useUi } from '../../stores/ui-store.ts';
import { clock } from '../common/format.ts';
import { notificationStatus } from '../common/notification-status.ts';
import { useNow } from '../common/use-now.ts';

/** Every alert kept (the newest 200, across restarts), ongoing first, each with what to do and the page that explains it. */
export function NotificationsPage() {
  const n = useSnapshot('notifications');
  const fleet = useSnapshot('fleet');
  const rigAlerts = fleet?.alerts ?? [];
  const go = useUi((s) => s.go);
  const now = useNow(1000);
  const [only, setOnly] = useState<'all' | 'active'>('all');
  const all = n?.recent ?? [];
  const list = [...all].filter((x) => only === 'all' || x.active).sort((a, b) => Number(b.active) - Number(a.active) || b.at - a.at);
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Alerts</h1>
          <p>Every notification, kept across restarts (the newest 200): what happened, what to do, how long it lasted. Ongoing ones update as the condition changes. Mute kinds in Settings.</p>
        </div>
        <div className="row" role="group" aria-label="Show">
          <button className={`btn ${only === 'all' ? 'primary' : ''}`} aria-pressed={only === 'all'} onClick={() => setOnly('all')}>
            All ({all.length})
          </button>
          <button className={`btn ${only === 'active' ? 'primary' : ''}`} aria-pressed={only === 'active'} onClick={() => setOnly('active')}>
            Ongoing ({all.filter((x) => x.active).length})
          </button>
        </div>
      </div>
      {rigAlerts.length > 0 && (
        <section className="card stack" aria-labelledby="rig-alerts-h" data-testid="rig-alerts">
          <h2 id="rig-alerts-h">Open on your rigs ({rigAlerts.length})</h2>
          <p className="muted small">Read from each rig over SSH; each rig posts its own alerts to its chat webhook, so nothing here is posted twice.</p>
          <ul className="notif-list">
            {rigAlerts.map((x) => (
              <li key={`${x.rigId}-${x.id}`} className="notif">
                <span className={`badge ${x.severity === 'error' ? 'bad' : 'warn'}`}>{x.rigName}</span>
                <div>
                  <h3 className="notif-title">
                    {x.rigName}: {x.title}
                  </h3>
                  <p className="small">{x.body}</p>
                  <p className="small muted">Started {clock(x.at)}</p>
                </div>
                <span />
              </li>
            ))}
          </ul>
        </section>
      )}
      {list.length === 0 ? (
        <div className="empty">
          <h2>No alerts</h2>
          <p>{only === 'active' ? 'Nothing is wrong right now.' : 'Nothing has needed your attention yet.'}</p>
        </div>
      ) : (
        <ul className="notif-list" data-testid="notification-history">
          {list.map((x) => (
            <li key={x.id} className="card notif">
              <span className={`badge ${x.active ? (x.severity === 'error' ? 'bad' : 'warn') : 'neutral'}`}>
                {x.active ? (x.severity === 'error' ? 'error, ongoing' : 'warning, ongoing') : x.interruptedAt !== undefined ? 'interrupted' : 'cleared'}
              </span>
              <div>
                <h2 className="notif-title">{x.title}</h2>
                <p className="small">{x.body}</p>
                <p className="small muted">
                  Started {clock(x.at)} · {notificationStatus(x, now)}
                  {x.updatedAt !== x.at && x.active ? ` · text updated ${clock(x.updatedAt)}` : ''}
                </p>
              </div>
              {x.action ? (
                <button className="btn" onClick={() => go(x.action!.page)}>
                  {x.action.label}
                </button>
              ) : (
                <span />
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
