// The setup's pick-one cards: a labelled group of toggle buttons, only the picked one pressed.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ChoiceGroup, type Choice } from '../../../renderer/src/features/common/choice-group.tsx';

const CHOICES: Choice<'a' | 'b'>[] = [
  { id: 'a', title: 'Alpha', text: 'first' },
  { id: 'b', title: 'Beta', text: 'second' },
];

describe('choice group', () => {
  it('labels the group and presses only the picked option', () => {
    const html = renderToStaticMarkup(<ChoiceGroup label="Role" choices={CHOICES} picked="b" onPick={() => undefined} />);
    expect(html).toContain('role="group" aria-label="Role"');
    expect([...html.matchAll(/aria-pressed="(true|false)"/g)].map((m) => m[1])).toEqual(['false', 'true']);
    expect(html).toContain('<b>Alpha</b><span class="muted small">first</span>');
    expect(html).not.toContain('data-testid');
  });

  it('presses nothing before a pick, and adds test ids and per-option detail when asked', () => {
    const html = renderToStaticMarkup(<ChoiceGroup label="Runtime" choices={CHOICES} picked={null} onPick={() => undefined} testIdPrefix="rt-" detail={(id) => (id === 'a' ? <i>found</i> : null)} />);
    expect(html).not.toContain('aria-pressed="true"');
    expect([...html.matchAll(/data-testid="([^"]+)"/g)].map((m) => m[1])).toEqual(['rt-a', 'rt-b']);
    expect(html.match(/<i>found<\/i>/g)).toHaveLength(1);
  });
});
