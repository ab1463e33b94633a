import type { CommitRevealView } from '../../../../shared/validator.ts';

/** 12 s blocks: only for "in ~N min" hints; the block numbers are the authority. */
const BLOCK_S = 12;

function inBlocks(target: number, now: number | null): string {
  if (now === null) return '';
  const left = target - now;
  if (left <= 0) return 'due now';
  return `in ${left} blocks (~${Math.max(1, Math.round((left * BLOCK_S) / 60))} min)`;
}

/**
 * Which path the validator's weights take (plain set_weights or commit-reveal v4, read from the chain every tick),
 * the commits waiting for their reveal, and whether the last reveal put the committed weights on chain.
 */
export function CommitRevealCard({ cr, chainBlock }: { cr: CommitRevealView | undefined; chainBlock: number | null }) {
  if (!cr) return null;
  const on = cr.path === 'commit-reveal';
  const pending = [...cr.pending].sort((a, b) => a.expectedRevealBlock - b.expectedRevealBlock);
  return (
    <section className="card stack" aria-label="Commit-reveal" data-testid="commit-reveal">
      <div className="spread">
        <h3>Weights path</h3>
        <span className={`badge ${on ? 'info' : cr.path === 'plain' ? 'ok' : 'neutral'}`} data-testid="weights-path">
          {on ? `commit-reveal v${cr.version ?? 4}` : cr.path === 'plain' ? 'plain set_weights' : 'unknown until the chain answers'}
        </span>
      </div>
      <p className="muted small">
        {on
          ? `The subnet has commit-reveal on: each submission is a timelocked commit the chain reveals ${cr.revealPeriodEpochs ?? 1} epoch${cr.revealPeriodEpochs === 1 || cr.revealPeriodEpochs === null ? '' : 's'} later. The switch is read every tick.`
          : 'The subnet has commit-reveal off: weights go on chain directly. If its owner turns commit-reveal on, the next submission is a commit.'}
      </p>
      {pending.length > 0 ? (
        <div style={{ overflowX: 'auto' }}>
          <table data-testid="pending-commits">
            <thead>
              <tr>
                <th>Epoch</th>
                <th className="num">Committed at block</th>
                <th className="num">drand round</th>
                <th className="num">Reveal by block</th>
                <th>When</th>
              </tr>
            </thead>
            <tbody>
              {pending.map((p) => (
                <tr key={`${p.epochIndex}-${p.revealRound}`}>
                  <td>#{p.epochIndex}</td>
                  <td className="num">{p.commitBlock ?? '—'}</td>
                  <td className="num">{p.revealRound}</td>
                  <td className="num">{p.expectedRevealBlock}</td>
                  <td className="small">{inBlocks(p.expectedRevealBlock, chainBlock)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted small">No commit is waiting for its reveal.</p>
      )}
      <div data-testid="last-reveal">
        {cr.lastReveal ? (
          <p className="small">
            <span className={`badge ${cr.lastReveal.landed ? 'ok' : 'bad'}`}>{cr.lastReveal.landed ? 'last reveal landed' : 'last reveal did not land'}</span> {cr.lastReveal.detail}{' '}
            <span className="muted">
              (drand round {cr.lastReveal.revealRound}, checked at block {cr.lastReveal.checkedBlock})
            </span>
          </p>
        ) : (
          <p className="muted small">No reveal checked yet.</p>
        )}
      </div>
    </section>
  );
}
