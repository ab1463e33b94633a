import { useEffect, useState } from 'react';
import { useEngine } from '../../stores/engine-store.ts';

/** Seconds until the next reconnect attempt, ticking once a second. */
function useCountdown(at: number | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (at === null) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [at]);
  return at === null ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * Always visible while the engine is away: what happened, that it reconnects by itself, and that
 * actions wait for it. The pages stay readable underneath (their last known state).
 */
export function ConnectionBanner() {
  const connection = useEngine((s) => s.connection);
  const detail = useEngine((s) => s.detail);
  const seconds = useCountdown(connection === 'closed' ? detail.nextRetryAt : null);
  if (connection === 'open') return null;
  if (connection === 'connecting') {
    return (
      <div className="conn-banner connecting" role="status" data-testid="connection-banner">
        Connecting to the engine…
      </div>
    );
  }
  if (detail.refused) {
    return (
      <div className="conn-banner away" role="alert" data-testid="connection-banner">
        <b>The engine is running but no longer accepts this page.</b> It was probably restarted with a new token (<code>--rotate-token</code>). Open the URL it printed at start (the line beginning
        with <code>Open:</code>), or read the token from <code>headless-token</code> in its data folder.
      </div>
    );
  }
  if (detail.restarting) {
    return (
      <div className="conn-banner away" role="alert" data-testid="connection-banner">
        <b>The engine stopped unexpectedly and is restarting</b> ({detail.restarting})
        {seconds !== null && seconds > 0 ? `: next try in ${seconds} s, attempt ${detail.attempts}` : `: attempt ${detail.attempts}`}. The window stays open; buttons are disabled until the engine is
        back, and what you see is its last known state. If this repeats, the Logs page and a diagnostics export show why.
      </div>
    );
  }
  return (
    <div className="conn-banner away" role="alert" data-testid="connection-banner">
      <b>The engine is not reachable.</b> Reconnecting by itself
      {seconds !== null && seconds > 0 ? ` (next try in ${seconds} s, attempt ${detail.attempts + 1})` : ' now'}. Buttons are disabled until it is back; what you see is its last known state. If this
      lasts, check that the engine (<code>engy-panel headless</code> or the desktop app) is running on the rig.
    </div>
  );
}
