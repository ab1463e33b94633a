// Why Earnings has no on-chain figure, in the words a user needs: not read yet, not registered, or pruned.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { NotOnChain } from '../../../renderer/src/features/earnings/earnings-page.tsx';

const text = (html: string) => html.replace(/<[^>]+>/g, '');

describe('Earnings without an on-chain figure', () => {
  it('tells not-read-yet, never-registered and deregistered apart', () => {
    expect(text(renderToStaticMarkup(<NotOnChain registration={null} />))).toBe('The chain has not answered yet for this hotkey.');
    expect(text(renderToStaticMarkup(<NotOnChain registration={{ uid: null, lost: null, at: 1 }} />))).toBe('This hotkey is not registered on subnet 53: register it in Setup to start earning.');
    const lost = renderToStaticMarkup(<NotOnChain registration={{ uid: null, lost: { uid: 7 }, at: 1 }} />);
    expect(lost).toContain('role="alert"');
    expect(text(lost)).toBe('This hotkey is no longer registered on subnet 53 (it had uid 7): another registration took its slot. Nothing is earned until it is registered again in Setup.');
  });
});
