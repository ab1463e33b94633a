import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useEngine } from '../../stores/engine-store.ts';
import { downloadDiagnostics } from '../../lib/download-diagnostics.ts';
import type { LogLevel, LogLine } from '../../../../shared/logs.ts';
import { ActionError, useAction } from '../common/use-action.tsx';

const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

function lineText(l: LogLine): string {
  return `${new Date(l.ts).toISOString()} ${l.level.toUpperCase()} [${l.source}] ${l.msg}`;
}

export function LogsPage() {
  const live = useEngine((s) => s.logs);
  const [history, setHistory] = useState<LogLine[]>([]);
  const [query, setQuery] = useState('');
  const [source, setSource] = useState('');
  const [minLevel, setMinLevel] = useState<LogLevel>('info');
  const [follow, setFollow] = useState(true);
  /** Lines shown when the view was paused: newer ones wait below a "resume" bar instead of moving the text. */
  const [frozenAt, setFrozenAt] = useState<number | null>(null);
  const [exported, setExported] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const view = useRef<HTMLDivElement>(null);

  const { invoke: loadRecent, error: recentError } = useAction();
  useEffect(() => {
    void loadRecent('logs.recent', { limit: 5000 }).then((r) => {
      if (r.ok) setHistory(r.value.lines);
    });
  }, [loadRecent]);

  const all = useMemo(() => {
    const seen = new Set<number>();
    return [...history, ...live].filter((l) => (seen.has(l.seq) ? false : (seen.add(l.seq), true))).sort((a, b) => a.seq - b.seq);
  }, [history, live]);
  const sources = useMemo(() => [...new Set(all.map((l) => l.source))].sort(), [all]);
  const q = query.trim().toLowerCase();
  const matching = all.filter((l) => RANK[l.level] >= RANK[minLevel] && (!source || l.source === source) && (!q || l.msg.toLowerCase().includes(q) || l.source.toLowerCase().includes(q)));
  const shown = follow || frozenAt === null ? matching : matching.filter((l) => l.seq <= frozenAt);
  const waiting = matching.length - shown.length;

  // Following: the newest line stays in view (also on first open, once the history arrives).
  useLayoutEffect(() => {
    const el = view.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [shown.length, follow]);

  const pause = () => {
    setFollow(false);
    setFrozenAt(all[all.length - 1]?.seq ?? 0);
  };
  const resume = () => {
    setFollow(true);
    setFrozenAt(null);
  };
  // Scrolling up pauses (reading is not interrupted); scrolling back to the bottom resumes.
  const onScroll = () => {
    const el = view.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
    if (follow && !atBottom) pause();
    else if (!follow && atBottom && waiting === 0) resume();
  };

  // The browser gets the file as a download (a remote browser must not be handed a path on the rig).
  const exportDiagnostics = async () => {
    setError(null);
    const r = await downloadDiagnostics();
    if ('error' in r) setError(r.error);
    else setExported(`${r.fileName} (${(r.bytes / 1024).toFixed(0)} KiB)`);
  };

  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Logs</h1>
          <p>Every engine and process, live. Keys and secrets never appear here.</p>
        </div>
        <button className="btn primary" onClick={() => void exportDiagnostics()}>
          Export diagnostics
        </button>
      </div>
      {exported && (
        <div className="card" role="status" data-testid="diagnostics-path">
          Diagnostics downloaded: <code>{exported}</code> (a copy stays in the data folder's diagnostics/). It holds the hardware report, settings, recent logs and versions; no keys.
        </div>
      )}
      <ActionError error={error ?? recentError} />
      <div className="log-tools">
        <input type="search" placeholder="Search logs" aria-label="Search logs" value={query} onChange={(e) => setQuery(e.target.value)} style={{ flex: 1, minWidth: 240 }} />
        <select aria-label="Source" value={source} onChange={(e) => setSource(e.target.value)}>
          <option value="">All sources</option>
          {sources.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <select aria-label="Lowest level shown" value={minLevel} onChange={(e) => setMinLevel(e.target.value as LogLevel)}>
          {LEVELS.map((l) => (
            <option key={l} value={l}>
              {l === 'debug' ? 'All levels' : `${l} and above`}
            </option>
          ))}
        </select>
        <button className={`btn ${follow ? '' : 'primary'}`} onClick={() => (follow ? pause() : resume())} aria-pressed={!follow} data-testid="log-follow">
          {follow ? 'Pause' : `Resume${waiting > 0 ? ` (${waiting} new)` : ''}`}
        </button>
        <button className="btn" onClick={() => void navigator.clipboard?.writeText(shown.map(lineText).join('\n'))}>
          Copy {shown.length} lines
        </button>
      </div>
      <p className="small muted" role="status">
        {follow ? 'Following the newest line. Scroll up or press Pause to read without the text moving.' : `Paused${waiting > 0 ? `: ${waiting} newer line${waiting === 1 ? '' : 's'} waiting` : ''}.`}{' '}
        Showing {shown.length} of {all.length} lines.
      </p>
      <div className="logview" ref={view} role="log" aria-label="Log lines" tabIndex={0} onScroll={onScroll} data-testid="logview">
        {shown.length === 0 ? (
          <div className="muted">{all.length === 0 ? 'No log lines yet.' : 'No line matches the search.'}</div>
        ) : (
          shown.map((l) => (
            <div key={l.seq} className={`logline ${l.level}`}>
              <span className="muted">{new Date(l.ts).toLocaleTimeString()}</span> <span className="lvl">{l.level.toUpperCase()}</span> <span className="src">[{l.source}]</span> {l.msg}
            </div>
          ))
        )}
      </div>
    </div>
  );
}
