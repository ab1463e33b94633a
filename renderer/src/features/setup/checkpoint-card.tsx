import type { CheckpointSnapshot } from '../../../../shared/serve.ts';
import { ActionError, useAction } from '../common/use-action.tsx';

const gb = (b: number) => `${(b / 1e9).toFixed(2)} GB`;
function eta(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return 'estimating…';
  if (s < 90) return `${Math.round(s)} s left`;
  if (s < 5400) return `${Math.round(s / 60)} min left`;
  return `${(s / 3600).toFixed(1)} h left`;
}

/** The checkpoint folder: download with a real progress bar (bytes, rate, ETA), resume, and its identity. */
export function CheckpointCard({ c, canDownload = true, whyNot = null }: { c: CheckpointSnapshot; canDownload?: boolean; whyNot?: string | null }) {
  const { invoke, error } = useAction();
  const p = c.progress;
  const pct = p && p.bytesTotal > 0 ? (p.bytesDone / p.bytesTotal) * 100 : 0;
  return (
    <div className="card stack" data-testid="checkpoint">
      <div className="spread">
        <b>{c.repo}</b>
        <span className={`badge ${c.state === 'complete' ? 'ok' : c.state === 'failed' ? 'bad' : c.state === 'downloading' ? 'info' : 'neutral'}`}>{c.state}</span>
      </div>
      <div className="mono small muted">{c.dir}</div>
      {p && (c.state === 'downloading' || c.state === 'verifying') && (
        <div>
          <div className="meter" style={{ height: 12 }} role="progressbar" aria-valuenow={Math.round(pct)} aria-valuemin={0} aria-valuemax={100}>
            <span style={{ width: `${pct}%`, background: 'var(--accent)' }} />
          </div>
          <div className="spread small muted" style={{ marginTop: 4 }}>
            <span>
              {gb(p.bytesDone)} of {gb(p.bytesTotal)} ({pct.toFixed(1)} %) · file {p.filesDone}/{p.filesTotal}
              {p.currentFile ? ` · ${p.currentFile}` : ''}
            </span>
            <span>
              {(p.rateBps / 1e6).toFixed(1)} MB/s · {eta(p.etaS)}
            </span>
          </div>
        </div>
      )}
      {c.state === 'complete' && c.identity && (
        <dl className="kv">
          <dt>Identity (sent as model_root)</dt>
          <dd className="mono small">{c.identity}</dd>
          <dt>Published Merkle root</dt>
          <dd className="mono small">{c.publishedRoot ?? '—'} (a different, stronger commitment)</dd>
        </dl>
      )}
      {c.missing.length > 0 && c.state !== 'absent' && <div className="small">Missing: {c.missing.slice(0, 5).join('; ')}</div>}
      {c.error && <div className="error-box">{c.error}</div>}
      <ActionError error={error} />
      {!canDownload && whyNot && c.state !== 'complete' && <div className="small muted">{whyNot}</div>}
      <div className="row">
        {c.state === 'downloading' ? (
          <button className="btn" onClick={() => void invoke('checkpoint.cancel', null)}>
            Pause (resumes where it stopped)
          </button>
        ) : c.state !== 'complete' ? (
          <button className="btn primary" disabled={!canDownload} title={whyNot ?? undefined} onClick={() => void invoke('checkpoint.download', null)}>
            {c.state === 'incomplete' || c.state === 'failed' ? 'Resume download' : c.downloadBytes ? `Download (about ${Math.round(c.downloadBytes / 1e9)} GB)` : 'Download'}
          </button>
        ) : null}
        <button className="btn" onClick={() => void invoke('checkpoint.refresh', null)}>
          Check the folder
        </button>
      </div>
    </div>
  );
}
