// axe-core on a page, injected once per document. @axe-core/playwright's AxeBuilder evaluates axe's 1.5 MB
// source in the page on every analyze(), then opens a second, blank page, evaluates the source there too
// and hands it the results to finish: about 1 CPU s of Chromium and test process per check before any rule
// runs, on a two-core CI box whose suite is bound by CPU (docs/testing.md, "axe once per document"). This
// panel has no frames, so the single-frame axe.run that AxeBuilder's legacy mode uses gives the same
// answers; the same tags pick the same rules.
import axeCore from 'axe-core';
import type { Page } from 'playwright-core';

/** WCAG 2.0/2.1 A and AA, plus axe's best practices: what every page of the panel is held to. */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] as const;
/** WCAG 2.0/2.1 A and AA only (the fleet pages' checks). */
export const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] as const;
/** The rules whose answer depends on colours: all that can change when only the theme changes. */
export const AXE_COLOUR_RULES = ['color-contrast', 'link-in-text-block'] as const;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

export interface AxeRun {
  /** Rule tags to run (AXE_TAGS unless told); ignored when `rules` is given. */
  tags?: readonly string[];
  /** Run only these rules (e.g. AXE_COLOUR_RULES after a theme change). */
  rules?: readonly string[];
  /** A CSS selector: check only this part of the page. */
  include?: string;
}

/** Runs axe on the page's current document: its violations, every impact (callers filter), as AxeBuilder's result carries them. */
export async function runAxe(page: Page, o: AxeRun = {}): Promise<{ violations: AxeViolation[] }> {
  const present = await page.evaluate(() => typeof (window as unknown as { axe?: { run?: unknown } }).axe?.run === 'function');
  if (!present) await page.evaluate(axeCore.source);
  const runOnly = o.rules ? { type: 'rule' as const, values: [...o.rules] } : { type: 'tag' as const, values: [...(o.tags ?? AXE_TAGS)] };
  const violations = await page.evaluate(
    async ({ include, runOnly }) => {
      const axe = (window as unknown as { axe: typeof axeCore }).axe;
      // Only violations are collected in detail: passes and the rest are what made AxeBuilder's answer large.
      const res = await axe.run(include ?? document, { runOnly, resultTypes: ['violations'] });
      return res.violations.map((v) => ({ id: v.id, impact: v.impact ?? null, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target.map(String) })) }));
    },
    { include: o.include ?? null, runOnly },
  );
  return { violations };
}
