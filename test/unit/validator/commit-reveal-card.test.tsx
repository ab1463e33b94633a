// The Validate page's commit-reveal card rendered to markup: path, pending commits with reveal round and block,
// and whether the last reveal landed, in words.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CommitRevealCard } from '../../../renderer/src/features/validate/commit-reveal-card.tsx';
import { pendingCommitReveal } from '../../fixtures/validator/commit-reveal.ts';

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('commit-reveal card', () => {
  it('shows the commit path, pending commits soonest first, and a failed reveal', () => {
    const cr = pendingCommitReveal();
    const t = text(renderToStaticMarkup(<CommitRevealCard cr={cr} chainBlock={1050} />));
    expect(t).toContain('commit-reveal v4');
    expect(t).toContain('reveals 1 epoch later');
    expect(t.indexOf('#8')).toBeLessThan(t.indexOf('#9'));
    expect(t).toContain('22000000');
    expect(t).toContain('in 50 blocks (~10 min)');
    expect(t).toContain('last reveal did not land');
    expect(t).toContain('the weights on chain differ from the commit');
  });

  it('says plain weights, nothing pending, a landed reveal; and renders nothing without data', () => {
    const t = text(
      renderToStaticMarkup(
        <CommitRevealCard
          cr={{ path: 'plain', version: null, revealPeriodEpochs: null, pending: [], lastReveal: { epochIndex: 3, revealRound: 5, checkedBlock: 10, landed: true, detail: 'ok' } }}
          chainBlock={null}
        />,
      ),
    );
    expect(t).toContain('plain set_weights');
    expect(t).toContain('No commit is waiting for its reveal.');
    expect(t).toContain('last reveal landed');
    expect(renderToStaticMarkup(<CommitRevealCard cr={undefined} chainBlock={null} />)).toBe('');
  });
});
