// The Validate page's commit-reveal card rendered to markup: path, pending commits with reveal round and block,
// and whether the last reveal landed, in words.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CommitRevealCard } from '../../../renderer/src/features/validate/commit-reveal-card.tsx';
import type { CommitRevealView } from '../../../shared/validator.ts';

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('commit-reveal card', () => {
  it('shows the commit path, pending commits soonest first, and a failed reveal', () => {
    const cr: CommitRevealView = {
      path: 'commit-reveal',
      version: 4,
      revealPeriodEpochs: 1,
      pending: [
        { epochIndex: 9, revealRound: 22_000_240, expectedRevealBlock: 1460, commitBlock: 1120, uids: 12 },
        { epochIndex: 8, revealRound: 22_000_000, expectedRevealBlock: 1100, commitBlock: 1000, uids: 12 },
      ],
      lastReveal: { epochIndex: 7, revealRound: 21_999_000, checkedBlock: 1050, landed: false, detail: 'the weights on chain differ from the commit' },
    };
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
