import { useSnapshot } from '../../stores/engine-store.ts';
import { ActionError, useAction } from '../common/use-action.tsx';

/**
 * The desktop updater's sentence and what the user can do about it: check (works with automatic
 * updates off), download the version on offer, restart into a downloaded one (the miner drains first).
 */
export function UpdateCard({ desktop }: { desktop: boolean }) {
  const u = useSnapshot('update');
  const { invoke, busy, error } = useAction();
  return (
    <section className="card stack" data-testid="updates">
      <h2>Updates</h2>
      {!u ? (
        <p className="muted small">{desktop ? 'The updater is starting…' : 'This headless engine is updated by installing the new package; the desktop app updates itself.'}</p>
      ) : (
        <>
          <p role="status">
            {u.message} <span className="muted small">You run version {u.currentVersion}.</span>
          </p>
          {u.state === 'downloading' && u.percent !== null && (
            <div className="meter" role="progressbar" aria-label="Update download" aria-valuenow={Math.round(u.percent)} aria-valuemin={0} aria-valuemax={100}>
              <span style={{ width: `${u.percent}%`, background: 'var(--accent)' }} />
            </div>
          )}
          <div className="row">
            {(u.state === 'idle' || u.state === 'disabled' || u.state === 'error') && (
              <button className="btn" disabled={busy} onClick={() => void invoke('update.check', null)}>
                Check for updates
              </button>
            )}
            {u.state === 'available' && (
              <button className="btn primary" disabled={busy} onClick={() => void invoke('update.download', null)}>
                Download update {u.version ?? ''}
              </button>
            )}
            {u.state === 'downloaded' && (
              <button className="btn primary" disabled={busy} onClick={() => void invoke('update.restart', null)}>
                Restart to update to {u.version ?? 'the new version'} (waits for requests in flight)
              </button>
            )}
          </div>
        </>
      )}
      <ActionError error={error} />
    </section>
  );
}
