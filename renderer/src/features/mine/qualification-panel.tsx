import type { MinerSnapshot } from '../../../../shared/miner.ts';
import { earningSince, qualification } from '../../../../shared/qualification.ts';
import { clock, duration } from '../common/format.ts';

/**
 * The explicit state under the phase badge: while qualifying, what the gateway waits for and how far along
 * (each step with its figure); once earning, since when; refused or pulled, why and what to do.
 */
export function QualificationPanel({ m, now }: { m: MinerSnapshot; now: number }) {
  const since = earningSince(m);
  if (since !== null) {
    return (
      <p className="earning-note" data-testid="earning-since">
        Earning since {clock(since, now)} ({duration(now - since)}): the gateway sends this worker paid traffic. The panel reads this off the traffic; the gateway never says it.
      </p>
    );
  }
  if (m.phase === 'denied' || m.phase === 'pulled') {
    const why = m.legs.find((l) => l.denyReason)?.denyReason ?? m.detail;
    return (
      <div className="error-box" data-testid="refused-why">
        {m.phase === 'denied' ? 'Not admitted' : 'Withdrawn from paid traffic'}: {why}.{' '}
        {m.phase === 'denied'
          ? 'The gateway refused this worker: check the miner key in Setup (it must be registered for this gateway) and the serve plan, then start again.'
          : 'The gateway pulled this worker after it failed or slowed; it probes it again by itself once it serves correctly. The gate forecast below says which figure is off.'}
      </div>
    );
  }
  const q = qualification(m, now);
  if (!q) return null;
  return (
    <div className="stack" data-testid="qualification">
      <div>
        <b>
          Qualifying: {q.met} of {q.total} conditions met.
        </b>{' '}
        <span className="muted">Waiting for {q.waitingFor}.</span>
      </div>
      <progress max={q.total} value={q.met} aria-label={`Qualification: ${q.met} of ${q.total} conditions met`} />
      <ul className="reasons small">
        {q.steps.map((s) => (
          <li key={s.id}>
            <span className={`dot ${s.met === true ? 'ok' : s.met === false ? 'warn' : 'neutral'}`} aria-hidden="true" />
            <span>
              <b>{s.met === true ? 'met' : s.met === false ? 'not yet' : 'not measured'}</b> · {s.label}: {s.detail}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
