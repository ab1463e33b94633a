// The Fleet page on given snapshots: one row per rig with units and windows, "unreachable since" for a
// rig that is down, totals equal to the sum of the rows, each rig's share of today's τ, and an empty
// fleet pointing to Settings > Rigs.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FleetView } from '../../../renderer/src/features/fleet/fleet-view.tsx';
import { fleetSnapshot, rigRow } from '../../../electron/engine/fleet/fleet-row.ts';
import { rigLinkView } from '../../helpers/rig-link-view.ts';

const text = (html: string) =>
  html
    .replace(/<!-- -->/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');
const cell = (html: string, id: string) => text(new RegExp(`data-testid="${id}"[^>]*>(.*?)</(td|div)>`).exec(html)?.[1] ?? '').trim();

const cfg = (name: string) => ({ id: `abcdef${name.length}${name.charCodeAt(name.length - 1).toString(16)}00`, name, target: `op@${name}`, command: 'engy-panel', dataDir: null });
const earnings = (day: number, week: number, hotkey: string | null = null) => ({
  hotkey,
  epochs: [{ epochIndex: 9, projectedTao: day / 4 }],
  registration: { uid: 12 },
  onChain: null,
  totals: { day: { projectedTao: day, realisedTao: 0 }, week: { projectedTao: week, realisedTao: 0 } },
});
const miner = {
  phase: 'active',
  stats: { windowMs: 300_000, ok: 99, errors: 1, acceptanceRate: 0.99, ttftMs: { p99: 1200 }, tpotMs: { p99: 35 }, tokensPerSecond: 420, inflight: 2 },
  targets: { ttftP99Ms: 100_000, tpotP99Ms: 200, acceptance: 0.95 },
};

describe('Fleet page', () => {
  it('rows, unreachable since, totals as the sum of the rows, and shares', () => {
    const down = Date.now() - 125_000;
    const snap = fleetSnapshot([
      rigRow(cfg('rig-a'), rigLinkView({ topics: { settings: { role: 'mine' }, miners: [miner], earnings: earnings(0.5, 2), hardware: { gpus: [{ name: 'RTX 4090', temperatureC: 61 }] } } })),
      rigRow(
        cfg('rig-b'),
        rigLinkView({ link: 'unreachable', unreachableSince: down, detail: 'SSH to rig-b failed (Connection refused): check the rig is on and reachable.', topics: { earnings: earnings(0.25, 1) } }),
      ),
    ]);
    const html = renderToStaticMarkup(<FleetView fleet={snap} openSettings={() => {}} />);
    // Under 900 px the throughput folds under the state (CSS shows one of the two copies).
    expect(cell(html, 'rig-state-rig-a')).toBe('mining 420 tok/s');
    expect(cell(html, 'rig-state-rig-b')).toMatch(/^unreachable since .+ \(2 min \d+ s\) SSH to rig-b failed/);
    expect(cell(html, 'rig-today-rig-a')).toBe('0.500000 τ');
    expect(text(html)).toContain('RTX 4090 61 °C');
    expect(text(html)).toContain('420 tok/s');
    expect(text(html)).toContain('TTFT 1200 ms / 100.0 s');
    expect(text(html)).toMatch(/throughput \(last 5 min\)/);
    // Totals equal the sum of the rigs' own figures.
    expect(text(/data-testid="fleet-today".*?<\/div><\/div>/.exec(html)![0])).toContain('0.750000 τ');
    expect(text(/data-testid="fleet-week".*?<\/div><\/div>/.exec(html)![0])).toContain('3.0000 τ');
    expect(text(/data-testid="fleet-online".*?<\/div><\/div>/.exec(html)![0])).toContain('1 of 2');
    expect(text(/data-testid="share-rig-a".*?<\/div>/.exec(html)![0])).toContain('66.7 %');
    expect(html).toContain('aria-label="Select rig-a"');
  });

  it('rigs of one hotkey: the totals count its τ once, the rows say so, and the chart gives the hotkey one bar', () => {
    const key = '5F3sa2TJAWMqDhXG6jhV4N8ko9SxwGy8TpaNS1repo5EYjQX';
    const snap = fleetSnapshot([
      rigRow(cfg('rig-a'), rigLinkView({ topics: { earnings: earnings(0.5, 2, key) } })),
      rigRow(cfg('rig-b'), rigLinkView({ topics: { earnings: earnings(0.5, 2, key) } })),
      rigRow(cfg('rig-c'), rigLinkView({ topics: { earnings: earnings(0.25, 1, '5Other') } })),
    ]);
    const html = renderToStaticMarkup(<FleetView fleet={snap} openSettings={() => {}} />);
    expect(text(/data-testid="fleet-today".*?<\/div><\/div><\/div>/.exec(html)![0])).toMatch(/0\.750000 τ 2 hotkeys over 3 rigs, each counted once/);
    // The badge's text as a browser reads it (its rig names are nowrap spans inside it).
    const badge = (name: string) => (new RegExp(`data-testid="rig-shared-${name}"[^>]*>(.*?)</span></td>`).exec(html)?.[1] ?? '').replace(/<!-- -->|<[^>]+>/g, '');
    expect(badge('rig-b')).toBe('same hotkey as rig-a: counted once');
    expect(html).toMatch(/title="Same hotkey as rig-a: counted once in the totals \(from rig-a\), not again for this rig\."/);
    expect(badge('rig-a')).toBe('same hotkey as rig-b');
    expect(html).not.toContain('rig-shared-rig-c');
    expect(text(/data-testid="share-rig-a\+rig-b".*?<\/div>/.exec(html)![0])).toMatch(/rig-a, rig-b \(one hotkey\) 0\.500000 τ · 66\.7 %/);
    expect(text(/data-testid="share-rig-c".*?<\/div>/.exec(html)![0])).toContain('33.3 %');
  });

  it('a long SSH error is clamped to two lines with the whole sentence in its title', () => {
    const detail = `SSH to rig-b failed (${'x'.repeat(600)}): check the rig is on and reachable.`;
    const snap = fleetSnapshot([rigRow(cfg('rig-b'), rigLinkView({ link: 'unreachable', unreachableSince: 1, detail }))]);
    const html = renderToStaticMarkup(<FleetView fleet={snap} openSettings={() => {}} />);
    expect(html).toMatch(new RegExp(`class="muted small clamp-2" title="${detail.replace(/[()]/g, '\\$&')}" data-testid="rig-detail-rig-b"`));
  });

  it('an empty fleet says where to add rigs', () => {
    const html = renderToStaticMarkup(<FleetView fleet={fleetSnapshot([])} openSettings={() => {}} />);
    expect(text(html)).toMatch(/No rigs yet .*Settings &gt; Rigs/);
  });
});
