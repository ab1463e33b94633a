import { useEffect, useState } from 'react';
import { useSnapshot } from '../../stores/engine-store.ts';

/** In-page notifications: each new engine alert shows for a while; the desktop app also raises OS notifications. */
export function Toasts() {
  const n = useSnapshot('notifications');
  const [seen, setSeen] = useState<number>(() => Number(sessionStorage.getItem('engy-seen-notification') ?? 0));
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 5000);
    return () => clearInterval(t);
  }, []);
  const shown = (n?.recent ?? []).filter((x) => x.id > seen && now - x.at < 60_000).slice(0, 3);
  if (shown.length === 0) return null;
  const dismiss = () => {
    const top = n?.recent[0]?.id ?? 0;
    sessionStorage.setItem('engy-seen-notification', String(top));
    setSeen(top);
  };
  return (
    <div role="status" aria-live="polite" style={{ position: 'fixed', right: 20, bottom: 20, display: 'grid', gap: 8, width: 380, zIndex: 10 }}>
      {shown.map((x) => (
        <div key={x.id} className="card" style={{ borderColor: x.severity === 'error' ? 'var(--bad)' : 'var(--warn)', boxShadow: '0 8px 24px rgba(0,0,0,.3)' }}>
          <div className="spread">
            <b>{x.title}</b>
            <button className="btn" onClick={dismiss} aria-label="Dismiss notifications">
              ✕
            </button>
          </div>
          <div className="small">{x.body}</div>
        </div>
      ))}
    </div>
  );
}
