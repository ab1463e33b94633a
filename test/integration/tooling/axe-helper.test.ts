// The shared axe helper (test/helpers/axe.ts) against @axe-core/playwright's AxeBuilder on the same pages:
// the same violations, axe injected once per document (kept across in-page changes, again after a new
// document), and the rule and region choices the e2e files use.
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AXE_COLOUR_RULES, runAxe } from '../../helpers/axe.ts';
import { launchBrowser } from '../../helpers/browser.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>axe helper</title></head><body>
<main>
  <h1>Rig</h1>
  <section id="bad"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10"><p style="color:#777;background:#888">faint text</p></section>
  <section id="good"><p>Readable text</p><button type="button">Start mining</button></section>
</main></body></html>`;

const ids = (v: { id: string }[]) => v.map((x) => x.id).sort();

describe('axe helper', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('finds what AxeBuilder finds on the same page, with targets', { timeout: 60_000 }, async () => {
    await page.setContent(PAGE);
    const ours = (await runAxe(page)).violations;
    const theirs = (await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze()).violations;
    expect(ids(ours)).toEqual(ids(theirs));
    expect(ids(ours)).toEqual(expect.arrayContaining(['color-contrast', 'image-alt']));
    const img = ours.find((v) => v.id === 'image-alt')!;
    expect(img.impact).toBe('critical');
    expect(img.nodes.map((n) => n.target.join(' '))).toEqual(['img']);
  });

  it('injects axe once per document: kept across in-page changes, again after a new document', { timeout: 60_000 }, async () => {
    await page.setContent(PAGE);
    expect((await runAxe(page)).violations.length).toBeGreaterThan(0);
    await page.evaluate(() => ((window as unknown as { axe: { marker?: number } }).axe.marker = 7));
    // An in-page change (what a hash route does in the panel): same axe, and it sees the new DOM.
    await page.evaluate(() => document.querySelector('#bad')?.remove());
    expect((await runAxe(page)).violations).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { axe: { marker?: number } }).axe.marker)).toBe(7);
    // A new document (a navigation; setContent keeps the window) has no axe: injected again.
    await page.goto(`data:text/html,${encodeURIComponent(PAGE)}`);
    expect(ids((await runAxe(page)).violations)).toContain('image-alt');
    expect(await page.evaluate(() => (window as unknown as { axe: { marker?: number } }).axe.marker)).toBeUndefined();
  });

  it('runs only the colour rules, or only a region, when told', { timeout: 60_000 }, async () => {
    await page.setContent(PAGE);
    expect(ids((await runAxe(page, { rules: AXE_COLOUR_RULES })).violations)).toEqual(['color-contrast']);
    expect((await runAxe(page, { include: '#good' })).violations).toEqual([]);
    expect(ids((await runAxe(page, { include: '#bad' })).violations)).toEqual(expect.arrayContaining(['color-contrast', 'image-alt']));
  });
});
