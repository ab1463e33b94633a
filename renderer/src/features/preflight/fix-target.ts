// A Fix button goes to the exact place: the Setup step (opened if folded) or the Settings field
// (focused). Pages render after navigation, so the target is looked for over a few frames.
import type { FixTarget } from '../../../../shared/preflight.ts';
import { useUi } from '../../stores/ui-store.ts';

export function fixSelector(t: FixTarget): string {
  return t.page === 'setup' ? `[data-testid="stage-${t.step}"]` : `#setting-${t.field}`;
}

function reveal(t: FixTarget, el: Element): void {
  el.scrollIntoView({ block: 'center' });
  if (t.page === 'setup') {
    const head = el.querySelector('button[aria-expanded]');
    if (head && head.getAttribute('aria-expanded') !== 'true') (head as HTMLButtonElement).click();
    (head as HTMLElement | null)?.focus();
  } else {
    (el as HTMLElement).focus();
  }
}

export function goToFix(t: FixTarget): void {
  useUi.getState().go(t.page);
  let tries = 0;
  const look = () => {
    const el = document.querySelector(fixSelector(t));
    if (el) return reveal(t, el);
    if (++tries < 60) requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}
