// Issue 32 item 1: the Mine page says "withdrawn: serve unhealthy" with the cause and since when,
// and shows the KV-cache use the heartbeat reports, with units.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { MinerSnapshot } from '../../../shared/miner.ts';
import { ServeHealth } from '../../../renderer/src/features/mine/serve-health.tsx';

const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/&#x27;/g, "'");
const snap = (serveHealth: MinerSnapshot['serveHealth']) => ({ serveHealth }) as MinerSnapshot;

describe('Mine page: serve health', () => {
  it('says withdrawn with the cause, and nothing when the snapshot predates the gate', () => {
    const html = renderToStaticMarkup(<ServeHealth m={snap({ withdrawn: true, cause: 'the serve cannot be reached: connection refused', since: Date.UTC(2026, 0, 1, 12), kv: null })} />);
    expect(html).toContain('data-testid="serve-withdrawn"');
    expect(text(html)).toMatch(/^withdrawn: serve unhealthy \(the serve cannot be reached: connection refused\), since .+\. This engine's legs drained/);
    expect(renderToStaticMarkup(<ServeHealth m={snap(undefined)} />)).toBe('');
  });

  it('shows the KV cache in tokens and percent while healthy', () => {
    const html = renderToStaticMarkup(
      <ServeHealth m={snap({ withdrawn: false, cause: null, since: null, kv: { used: 12_000, reqs: 3, waiting: 1, pending: 0, ranks: 1, limit: 48_000, frac: 0.25 } })} />,
    );
    expect(html).not.toContain('serve-withdrawn');
    expect(text(html)).toBe('KV cache, now: 12,000 tokens held of 48,000 (25.0 %) · 3 running, 1 waiting · sent to the gateway with each heartbeat');
  });
});

describe('Mine page: withdrawn words', () => {
  it('names the other workers only when the rig has them; the gate forecast says none while withdrawn', async () => {
    const { forecastWords } = await import('../../../renderer/src/features/mine/forecast-words.ts');
    const withdrawn = { withdrawn: true, cause: 'connection refused', since: null, kv: null };
    const one = text(renderToStaticMarkup(<ServeHealth m={snap(withdrawn)} workers={1} />));
    expect(one).not.toMatch(/other workers/);
    expect(one).toContain('this rig serves nothing and earns nothing until they are back');
    expect(text(renderToStaticMarkup(<ServeHealth m={snap(withdrawn)} workers={2} />))).toContain('requests go to the other workers of this rig');
    const onTrack = { status: 'on-track', text: 'on track', gate: null } as MinerSnapshot['forecast'];
    expect(forecastWords({ forecast: onTrack, serveHealth: withdrawn })).toEqual({
      tone: 'neutral',
      text: 'Gate forecast: none while withdrawn. This engine gets no traffic, so nothing is measured against the gates until it is back.',
    });
    expect(forecastWords({ forecast: onTrack, serveHealth: { ...withdrawn, withdrawn: false } })).toEqual({ tone: 'ok', text: 'Gate forecast: on track' });
  });
});
