import type { Page } from 'playwright-core';

/**
 * The buttons, links and form controls outside the alert tray that an alert's box intersects (by
 * bounding boxes in the page, not by eye); empty when no alert covers anything. Also says how many
 * alerts were on screen, so a test can prove it checked something.
 */
export async function alertsCoveringControls(page: Page): Promise<{ alerts: number; covered: string[] }> {
  return page.evaluate(() => {
    const tray = document.querySelector('section.toasts');
    const alerts = tray ? [...tray.querySelectorAll('.toast')].map((t) => t.getBoundingClientRect()) : [];
    const covered: string[] = [];
    for (const c of document.querySelectorAll('button, a[href], input, select, textarea, summary')) {
      if (tray?.contains(c)) continue;
      const r = c.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      for (const t of alerts) {
        const overlap = r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom;
        if (overlap) covered.push((c.textContent ?? c.getAttribute('aria-label') ?? c.tagName).trim().slice(0, 60));
      }
    }
    return { alerts: alerts.length, covered };
  });
}
