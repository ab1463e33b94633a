import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import { AXIS_FONT, useChartTheme } from './uplot-chart.tsx';

export interface EpochBar {
  index: number;
  projected: number | null;
  realised: number | null;
}

/**
 * τ per epoch as bars on uPlot (x = epoch index, not time), projected and realised side by side.
 * Missing epochs are drawn as a hatched band labelled "gap" so they are never silently skipped;
 * the page lists why each one is missing.
 */
export function EpochBars({ bars, gaps, height = 220, format }: { bars: EpochBar[]; gaps: number[]; height?: number; format: (v: number) => string }) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useChartTheme();
  useEffect(() => {
    const el = box.current;
    if (!el || bars.length === 0) return;
    const all = [...bars.map((b) => b.index), ...gaps];
    const lo = Math.min(...all);
    const hi = Math.max(...all);
    const xs: number[] = [];
    for (let i = lo; i <= hi; i++) xs.push(i);
    const by = new Map(bars.map((b) => [b.index, b]));
    const data: uPlot.AlignedData = [xs, xs.map((i) => by.get(i)?.projected ?? null), xs.map((i) => by.get(i)?.realised ?? null)];
    const gapSet = new Set(gaps);
    const barPaths = (offset: number) => uPlot.paths.bars!({ size: [0.35, 40], align: offset as 1 | -1 });
    const u = new uPlot(
      {
        width: Math.max(240, el.clientWidth),
        height,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: false, range: [lo - 0.6, hi + 0.6] }, y: { range: (_u, _min, max) => [0, max === null || max <= 0 ? 1 : max * 1.15] } },
        axes: [
          {
            stroke: theme.text,
            font: AXIS_FONT,
            grid: { show: false },
            ticks: { stroke: theme.grid },
            space: 36,
            incrs: [1, 2, 5, 10, 20, 50],
            values: (_u, vals) => vals.map((v) => (Number.isInteger(v) ? `#${v}` : '')),
          },
          { stroke: theme.text, font: AXIS_FONT, size: 78, grid: { stroke: theme.grid, width: 1 }, ticks: { stroke: theme.grid }, values: (_u, vals) => vals.map((v) => format(v)) },
        ],
        series: [
          {},
          { label: 'projected', stroke: theme.series[0], fill: theme.series[0], paths: barPaths(-1), points: { show: false } },
          { label: 'realised', stroke: theme.series[1], fill: theme.series[1], paths: barPaths(1), points: { show: false } },
        ],
        hooks: {
          drawAxes: [
            (p) => {
              const ctx = p.ctx;
              const px = uPlot.pxRatio;
              ctx.save();
              for (const g of gapSet) {
                const x0 = p.valToPos(g - 0.45, 'x', true);
                const x1 = p.valToPos(g + 0.45, 'x', true);
                ctx.fillStyle = theme.grid;
                ctx.globalAlpha = 0.5;
                ctx.fillRect(x0, p.bbox.top, x1 - x0, p.bbox.height);
                ctx.globalAlpha = 1;
                ctx.fillStyle = theme.text;
                ctx.font = `${12 * px}px system-ui, sans-serif`;
                ctx.textAlign = 'center';
                ctx.fillText('gap', (x0 + x1) / 2, p.bbox.top + 16 * px);
              }
              ctx.restore();
            },
          ],
        },
      },
      data,
      el,
    );
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(240, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
    };
  }, [bars, gaps, height, theme, format]);
  return (
    <div>
      <div className="chart-legend small" aria-hidden="true">
        <span>
          <i style={{ background: theme.series[0] }} />
          projected (signed result)
        </span>
        <span>
          <i style={{ background: theme.series[1] }} />
          realised (chain)
        </span>
        {gaps.length > 0 && (
          <span>
            <i style={{ background: theme.grid }} />
            gap: epoch missing (reason below)
          </span>
        )}
      </div>
      <div
        ref={box}
        role="img"
        aria-label={`τ per epoch: ${bars.map((b) => `#${b.index} projected ${b.projected === null ? 'unknown' : format(b.projected)}, realised ${b.realised === null ? 'unknown' : format(b.realised)}`).join('; ')}${gaps.length ? `; missing epochs ${gaps.map((g) => `#${g}`).join(', ')}` : ''}`}
        style={{ minHeight: height }}
      />
    </div>
  );
}
