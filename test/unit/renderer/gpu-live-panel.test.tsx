// Issue 28 item 3: the Mine page's live GPU cards say every figure with its unit, the throttle reasons
// as words, and the chart's throttling events (spans) in words; missing readings read "—", never 0.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { GpuPoint, GpuSeries } from '../../../shared/serve.ts';
import { GpuCards, ThrottleSummary } from '../../../renderer/src/features/mine/gpu-cards.tsx';
import { throttleSpans } from '../../../renderer/src/features/mine/throttle-spans.ts';
import { powerAxisMaxW } from '../../../renderer/src/features/mine/power-axis.ts';

const T = Date.UTC(2026, 11, 4, 2, 0, 0);
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
const point = (at: number, over: Partial<GpuPoint> = {}): GpuPoint => ({
  at,
  utilizationPct: 98,
  memoryUsedMiB: 21_800,
  memoryTotalMiB: 24_564,
  temperatureC: 71,
  powerDrawW: 431.2,
  powerLimitW: 450,
  fanPct: 64,
  smClockMHz: 2520,
  memClockMHz: 10501,
  throttle: [],
  ...over,
});
const gpu = (index: number, points: GpuPoint[]): GpuSeries => ({ index, name: 'NVIDIA GeForce RTX 4090', points });

describe('live GPU cards', () => {
  it('shows power against the limit, utilisation, fan, clocks, memory and temperature with units', () => {
    const html = renderToStaticMarkup(<GpuCards gpus={[gpu(0, [point(T - 3_000)])]} now={T} />);
    const t = text(html);
    expect(t).toContain('Power 431 W of 450 W · 96 % of the power limit');
    expect(t).toContain('Utilisation 98 %');
    expect(t).toContain('Fan 64 %');
    expect(t).toContain('Clocks SM 2,520 MHz · memory 10,501 MHz');
    expect(t).toContain('Memory 21.3 of 24.0 GiB');
    expect(t).toContain('Temperature 71 °C');
    expect(t).toContain('not throttled');
    expect(t).toContain('sampled 3 s ago');
  });

  it('names the throttle reasons in words, red for a slowdown, amber for a power cap alone', () => {
    const cap = renderToStaticMarkup(<GpuCards gpus={[gpu(1, [point(T, { throttle: ['sw-power-cap'] })])]} now={T} />);
    expect(cap).toMatch(/class="badge warn"[^>]*data-throttled="yes"[^>]*>throttled: power cap</);
    const hot = renderToStaticMarkup(<GpuCards gpus={[gpu(1, [point(T, { throttle: ['sw-power-cap', 'hw-thermal', 'hw-slowdown'] })])]} now={T} />);
    expect(text(hot)).toContain('throttled: power cap, thermal (HW slowdown), HW slowdown');
    expect(hot).toContain('class="badge bad"');
  });

  it('says a reading is missing instead of showing a number (an older engine, a passive card, [N/A])', () => {
    const old: GpuPoint = { at: T, utilizationPct: null, memoryUsedMiB: null, memoryTotalMiB: null, temperatureC: null, powerDrawW: null };
    const t = text(renderToStaticMarkup(<GpuCards gpus={[gpu(0, [old]), gpu(1, [])]} now={T} />));
    expect(t).toContain('Power — (not reported)');
    expect(t).toContain('Fan — (no fan reported)');
    expect(t).toContain('Clocks SM — · memory —');
    expect(t).toContain('Utilisation —');
    expect(t).toContain('throttle reasons not reported');
    expect(t).not.toMatch(/\b0 (W|%|°C|MHz)/);
    expect(t.match(/GPU \d/g)).toEqual(['GPU 0']);
  });
});

describe('throttling events on the live chart', () => {
  it('joins consecutive throttled samples into one event per kind and ends it at the first clear sample', () => {
    const pts = [
      point(T, { throttle: [] }),
      point(T + 1_000, { throttle: ['sw-power-cap'] }),
      point(T + 2_000, { throttle: ['sw-power-cap', 'sw-thermal'] }),
      point(T + 3_000, { throttle: ['sw-power-cap'] }),
      point(T + 4_000, { throttle: [] }),
      point(T + 5_000, { throttle: ['sw-power-cap'] }),
      point(T + 6_000, { throttle: null }),
    ];
    const spans = throttleSpans([gpu(1, pts)], T);
    expect(spans).toEqual([
      { gpu: 1, kind: 'power', from: T + 1_000, to: T + 4_000, reasons: ['sw-power-cap'] },
      { gpu: 1, kind: 'slowdown', from: T + 2_000, to: T + 3_000, reasons: ['sw-thermal'] },
      { gpu: 1, kind: 'power', from: T + 5_000, to: T + 6_000, reasons: ['sw-power-cap'] },
    ]);
    expect(text(renderToStaticMarkup(<ThrottleSummary spans={spans} windowLabel="last 4 min" />))).toBe('Throttling in the last 4 min: GPU 1: 2 power-cap events, 1 slowdown event.');
  });

  it('keeps an event still going open to the newest sample, and drops samples before the window', () => {
    const spans = throttleSpans([gpu(0, [point(T - 10_000, { throttle: ['hw-thermal'] }), point(T, { throttle: ['hw-thermal'] }), point(T + 1_000, { throttle: ['hw-thermal'] })])], T - 1);
    expect(spans).toEqual([{ gpu: 0, kind: 'slowdown', from: T, to: T + 2_000, reasons: ['hw-thermal'] }]);
    expect(renderToStaticMarkup(<ThrottleSummary spans={[]} windowLabel="last 4 min" />)).toContain('No throttling in the last 4 min.');
  });
});

describe('the power charts scale', () => {
  it('tops out 10 % above the highest power limit, rounded up to 50 W; 500 W while no card reports one', () => {
    expect(powerAxisMaxW(450)).toBe(500);
    expect(powerAxisMaxW(455)).toBe(550);
    expect(powerAxisMaxW(700)).toBe(800);
    expect(powerAxisMaxW(0)).toBe(500);
  });
});
