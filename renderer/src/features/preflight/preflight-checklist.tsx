// Every blocker between the user and Start, as the engine computed it: the page never decides on
// its own, so the checklist and the engine's refusal always agree.
import type { PreflightCheck, PreflightReport } from '../../../../shared/preflight.ts';
import { useSnapshot } from '../../stores/engine-store.ts';
import { goToFix } from './fix-target.ts';

const STATE_LABEL: Record<PreflightCheck['state'], string> = { ok: 'ready', blocked: 'blocked', unknown: 'checking' };
const STATE_BADGE: Record<PreflightCheck['state'], string> = { ok: 'ok', blocked: 'bad', unknown: 'warn' };

/** The role's report, or undefined while the first snapshot has not arrived (loading, not empty). */
export function usePreflight(role: 'mine' | 'validate'): PreflightReport | null | undefined {
  const p = useSnapshot('preflight');
  return p === undefined ? undefined : p === null ? null : p[role];
}

export function PreflightChecklist({ role }: { role: 'mine' | 'validate' }) {
  const r = usePreflight(role);
  if (r === undefined)
    return (
      <section className="card muted" aria-busy="true">
        Loading the pre-flight checklist…
      </section>
    );
  if (r === null) return null;
  const open = r.checks.filter((c) => c.state !== 'ok').length;
  return (
    <section className="card stack" aria-label="Pre-flight checklist" data-testid={`preflight-${role}`} style={{ gap: 10 }}>
      <div className="spread">
        <h3 style={{ margin: 0 }}>Pre-flight</h3>
        <span className={`badge ${open === 0 ? 'ok' : 'bad'}`} data-testid="preflight-summary">
          {open === 0 ? 'all clear' : `${open} to fix`}
        </span>
      </div>
      {open > 0 && (
        <p className="small muted" style={{ margin: 0 }}>
          Start is enabled once every check is ready; each Fix button goes to the place that fixes it.
        </p>
      )}
      <ul className="reasons">
        {r.checks.map((c) => (
          <li key={c.id} data-testid={`preflight-check-${c.id}`} data-state={c.state} style={{ gridTemplateColumns: '22px 1fr auto', alignItems: 'start' }}>
            <span className={`dot ${c.state === 'ok' ? 'ok' : c.state === 'unknown' && !c.failed ? 'warn' : 'blocker'}`} aria-hidden="true" />
            <span>
              <b>{c.title}</b> <span className={`badge ${c.failed ? 'bad' : STATE_BADGE[c.state]}`}>{c.failed ? 'could not check' : STATE_LABEL[c.state]}</span>
              <span className="small" style={{ display: 'block', overflowWrap: 'anywhere' }}>
                {c.sentence}
              </span>
            </span>
            {c.fix ? (
              <button className="btn" onClick={() => goToFix(c.fix!.target)} aria-label={`Fix ${c.title}: ${c.fix.label}`}>
                {c.fix.label}
              </button>
            ) : (
              <span />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
