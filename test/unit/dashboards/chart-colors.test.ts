// Every chart series colour has >= 4.5:1 contrast against the card background of its theme, and
// the light theme does not reuse the dark one's pale colours (the 1.7:1 of the old charts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contrastRatio, SERIES_VARS } from '../../../renderer/src/features/charts/series-colors.ts';

const css = readFileSync(join(import.meta.dirname, '..', '..', '..', 'renderer', 'src', 'styles.css'), 'utf8');
function block(selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  const body = css.slice(start, css.indexOf('}', start));
  return Object.fromEntries([...body.matchAll(/(--[\w-]+):\s*(#[0-9a-fA-F]{6})/g)].map((m) => [m[1]!, m[2]!]));
}

describe('chart colours', () => {
  for (const [name, sel] of [
    ['dark', ':root'],
    ['light', ":root[data-theme='light']"],
  ] as const) {
    it(`${name}: every series and the gate colour reach 4.5:1 on the card background`, () => {
      const vars = block(sel);
      const panel = vars['--panel']!;
      for (const v of [...SERIES_VARS, '--bad', '--muted']) {
        const c = vars[v];
        expect(c, `${v} defined in ${name}`).toBeDefined();
        expect(contrastRatio(c!, panel), `${v} ${c} on ${panel}`).toBeGreaterThanOrEqual(4.5);
      }
    });
  }
  it('computes WCAG contrast', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 1);
  });
});
