// The Earnings table's layout: six columns a home miner reads (epoch, when, τ earned, its value, power
// cost, net) that fit at 1280 px; everything else in the row's details; below 900 px the window folds
// under the epoch number (a two-line row). The e2e (figure-consistency) measures the fit in Chromium.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { EpochEarnings } from '../../../shared/earnings.ts';
import type { TauPriceSnapshot } from '../../../shared/price.ts';
import { epochEarnings } from '../../helpers/epoch-earnings.ts';
import { EpochTable, epochColumns, FIRST_ROWS } from '../../../renderer/src/features/earnings/epoch-table.tsx';

const price: TauPriceSnapshot = { currency: 'eur', perTao: 400, source: 'api.coingecko.com', at: 1, error: null, nextAt: null };
const inputs = { price, powerW: 1200, kwhPrice: 0.3 };

const epoch = (i: number, over: Partial<EpochEarnings> = {}): EpochEarnings =>
  epochEarnings({ epochIndex: i, row: { hotkey: '5Rig', tokens: 146, requests_ok: 9, requests_failed: 1 }, projectedNote: 'n', realisedNote: 'n', ...over });

const rows = (html: string) => html.match(/<tr data-epoch="[^"]*">[\s\S]*?<\/tr>/g) ?? [];
const cells = (row: string) => row.match(/<td[\s>]/g)?.length ?? 0;
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('the Earnings table layout', () => {
  it('has six columns in the currency chosen, in the order a home miner reads them', () => {
    expect(epochColumns('eur').map((c) => c.header)).toEqual(['Epoch', 'When (local time)', 'Earned τ (projected)', 'Value in EUR', 'Power cost (EUR)', 'Net (EUR)']);
    const html = renderToStaticMarkup(<EpochTable epochs={[epoch(2), epoch(1)]} inputs={inputs} />);
    expect(html.match(/<th[\s>]/g)?.length).toBe(6);
    for (const r of rows(html)) expect(cells(r)).toBe(6);
  });

  it('shows the money figures in the row and folds the token counts and weight share into the details', () => {
    const [row] = rows(renderToStaticMarkup(<EpochTable epochs={[epoch(3)]} inputs={inputs} />));
    for (const f of ['epoch-income', 'epoch-power', 'epoch-net', 'realised']) expect(row).toContain(`data-figure="${f}"`);
    expect(row).not.toMatch(/data-figure="(billed-tokens|served-tokens|billed-requests)"/);
    expect(text(row!)).not.toContain('50.00 %');
    // 0.01 τ at 400 EUR = 4 EUR; 1.2 kW over 1 h at 0.3 EUR/kWh = 0.36 EUR.
    expect(text(row!)).toMatch(/4\.00 EUR .*0\.360 EUR .*3\.64 EUR/);
    expect(row).toContain('aria-controls="epoch-detail-row-3"');
  });

  it('keeps the window twice, once as its column and once for the two-line row, and a failed gate in the epoch cell', () => {
    const [row] = rows(renderToStaticMarkup(<EpochTable epochs={[epoch(4, { gate: { passed: false, reason: 'ttft' } })]} inputs={inputs} />));
    expect(row).toMatch(/class="small epoch-when">[^<]+ → [^<]+ \(1 h\)</);
    expect(row).toMatch(/class="epoch-when-inline small muted">[^<]+ → [^<]+ \(1 h\)</);
    expect(row).toMatch(/<span class="badge bad" title="TTFT p99 above the model gate">gate failed<\/span>/);
    // The CSS that decides which of the two shows: the column above 900 px, the folded line below.
    const css = readFileSync(join(import.meta.dirname, '..', '..', '..', 'renderer', 'src', 'styles.css'), 'utf8');
    const narrow = css.slice(css.indexOf('@media (max-width: 900px) {\n  .epoch-table'));
    expect(css).toMatch(/\.epoch-when-inline \{\s*display: none;/);
    expect(narrow).toMatch(/^@media \(max-width: 900px\) \{\s*\.epoch-table \.epoch-when \{\s*display: none;\s*\}\s*\.epoch-table \.epoch-when-inline \{\s*display: block;/);
  });

  it('says running for the epoch whose realised τ still accrues, and "realised —" when there is no chain read', () => {
    const html = renderToStaticMarkup(<EpochTable epochs={[epoch(6, { realisedRunning: true, realisedTao: 0.001 }), epoch(5, { realisedTao: null, projectedTao: null })]} inputs={inputs} />);
    const [running, none] = rows(html);
    expect(text(running!.match(/data-figure="realised">[\s\S]*?<\/div>/)![0])).toMatch(/running realised 0\.001000 τ so far/);
    expect(none).toContain('data-figure="realised">realised —<');
    expect(text(none!)).toMatch(/— .*—/);
  });

  it(`shows the newest ${FIRST_ROWS} epochs first, with a button for the rest`, () => {
    const many = Array.from({ length: FIRST_ROWS + 3 }, (_, i) => epoch(100 - i));
    const html = renderToStaticMarkup(<EpochTable epochs={many} inputs={inputs} />);
    expect(rows(html)).toHaveLength(FIRST_ROWS);
    expect(html).toContain(`Show all ${FIRST_ROWS + 3} epochs`);
  });
});
