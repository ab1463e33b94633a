import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { alignSeries, latest, logRange, windowWords, type Point } from './align.ts';
import { readChartTheme, type ChartTheme } from './series-colors.ts';
import { useNow } from '../common/use-now.ts';

export interface ChartSeries {
  label: string;
  points: Point[];
  /** Dashed (e.g. a limit drawn beside the value it limits). */
  dash?: boolean;
  /** Colour slot (default: the series' position). */
  color?: number;
}

export interface ChartProps {
  title: string;
  /** One unit per quantity, shown on the axis and in the legend. */
  unit: string;
  series: ChartSeries[];
  /** Visible time window ending now (the x axis always spans it, so the window is visible even when empty). */
  windowMs: number;
  /** Fixed y range where the quantity has one (0-100 %, 0-total GiB); else from the data. */
  range?: [number, number];
  /** Log scale: a small value and a far gate both stay readable. */
  log?: boolean;
  /** A gate drawn as a dashed reference line; when it lies above the visible range a marker says so at the top edge. */
  gate?: { value: number; label: string };
  height?: number;
  format?: (v: number) => string;
  /** How the plotted values were computed ("p99 of the trailing 5 min, sampled every 10 s"). */
  note?: string;
  /** Re-render on this clock (ms) so the window slides with time. */
  now?: number;
  /** A count (requests): ticks only at whole numbers, never "0.3 req". */
  counts?: boolean;
  /** Spans of time shaded behind the lines (events such as throttling); the caller says what they mean in `note`. */
  bands?: ChartBand[];
}

export interface ChartBand {
  from: number;
  to: number;
  /** warn: amber (e.g. a power cap); bad: red (e.g. a thermal slowdown). */
  tone: 'warn' | 'bad';
}

/** Tick steps for counts: whole numbers only. */
const COUNT_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000];

/** The document theme, re-read whenever `data-theme` changes, so charts switch colours with the app. */
export function useChartTheme(): ChartTheme {
  const [theme, setTheme] = useState(() => readChartTheme());
  useEffect(() => {
    const mo = new MutationObserver(() => setTheme(readChartTheme()));
    mo.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => mo.disconnect();
  }, []);
  return theme;
}

export const AXIS_FONT = '12px system-ui, sans-serif';

function gatePlugin(gate: ChartProps['gate'], color: string, format: (v: number) => string): uPlot.Plugin {
  return {
    hooks: {
      draw: [
        (u) => {
          if (!gate) return;
          const ctx = u.ctx;
          const { left, top, width, height } = u.bbox;
          const max = u.scales.y!.max ?? gate.value;
          const offScale = gate.value > max;
          const y = offScale ? top : u.valToPos(gate.value, 'y', true);
          const px = uPlot.pxRatio;
          ctx.save();
          ctx.strokeStyle = color;
          ctx.fillStyle = color;
          ctx.lineWidth = 1.5 * px;
          ctx.setLineDash([6 * px, 4 * px]);
          ctx.beginPath();
          ctx.moveTo(left, y);
          ctx.lineTo(left + width, y);
          ctx.stroke();
          ctx.setLineDash([]);
          ctx.font = `${12 * px}px system-ui, sans-serif`;
          ctx.textAlign = 'right';
          ctx.textBaseline = offScale ? 'top' : 'bottom';
          const text = offScale ? `▲ ${gate.label} (${format(gate.value)}, above this scale)` : gate.label;
          ctx.fillText(text, left + width - 4 * px, offScale ? y + 3 * px : y - 3 * px);
          void height;
          ctx.restore();
        },
      ],
    },
  };
}

/** Shades each band across the plot behind the series, with a solid strip on top so a thin one still shows. */
function bandsPlugin(bands: { current: ChartBand[] }, theme: ChartTheme): uPlot.Plugin {
  return {
    hooks: {
      drawAxes: [
        (u) => {
          const ctx = u.ctx;
          const { left, top, width, height } = u.bbox;
          const px = uPlot.pxRatio;
          ctx.save();
          for (const b of bands.current) {
            const x0 = Math.max(left, u.valToPos(b.from / 1000, 'x', true));
            const x1 = Math.min(left + width, u.valToPos(b.to / 1000, 'x', true));
            if (x1 <= x0) continue;
            const w = Math.max(2 * px, x1 - x0);
            ctx.fillStyle = b.tone === 'warn' ? theme.warn : theme.gate;
            ctx.globalAlpha = 0.16;
            ctx.fillRect(x0, top, w, height);
            ctx.globalAlpha = 0.9;
            ctx.fillRect(x0, top, w, 5 * px);
          }
          ctx.restore();
        },
      ],
    },
  };
}

/**
 * A time-series chart on uPlot: canvas sized to its box (never a scaled SVG), 12 px axis text,
 * theme colours, a fixed time window, fixed y ranges where they exist, gates as reference lines.
 * The legend shows the latest value of each series, or the value under the cursor.
 */
export function UplotChart({ title, unit, series, windowMs, range, log, gate, height = 190, format = (v) => v.toFixed(v >= 100 ? 0 : 1), note, now: nowProp, counts = false, bands }: ChartProps) {
  const ticking = useNow(5000);
  const now = nowProp ?? ticking;
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const theme = useChartTheme();
  const [hover, setHover] = useState<number | null>(null);
  // Read by the draw hook on every redraw: new bands need no rebuild, only the redraw setData causes.
  const bandsRef = useRef<ChartBand[]>(bands ?? []);
  bandsRef.current = bands ?? [];
  const from = now - windowMs;
  const data = useMemo(
    () =>
      alignSeries(
        series.map((s) => s.points),
        from,
        now,
      ),
    [series, from, now],
  );
  // The window too: the x scale's range is fixed when the plot is built, and a chart may change its window.
  const shape = `${series.map((s) => s.label).join('|')}|${log ? 'log' : 'lin'}|${range?.join(',') ?? 'auto'}|${gate?.value ?? ''}|${height}|${windowMs}`;
  const hasData = data.slice(1).some((y) => (y as Array<number | null>).some((v) => v !== null));

  // (Re)build when the shape or the theme changes; data updates go through setData below.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const colorOf = (s: ChartSeries, i: number) => theme.series[(s.color ?? i) % theme.series.length]!;
    const allY = data.slice(1).flat() as Array<number | null>;
    const yRange: uPlot.Scale.Range = log ? () => logRange(allY, gate?.value ?? null) : range ? () => range : (_u, min, max) => [Math.min(0, min ?? 0), max === null || max <= 0 ? 1 : max * 1.15];
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { size: 7 } },
      scales: { x: { time: true, range: () => [(Date.now() - windowMs) / 1000, Date.now() / 1000] }, y: log ? { distr: 3, range: yRange } : { range: yRange } },
      axes: [
        // Narrow plots (800 px windows) keep wider gaps: the first tick's date ("12/4/26 5:23am") ran into the next label.
        { stroke: theme.text, font: AXIS_FONT, grid: { stroke: theme.grid, width: 1 }, ticks: { stroke: theme.grid }, space: (_u, _axis, _min, _max, plotDim) => (plotDim < 700 ? 100 : 70) },
        {
          stroke: theme.text,
          font: AXIS_FONT,
          size: 62,
          grid: { stroke: theme.grid, width: 1 },
          ticks: { stroke: theme.grid },
          ...(counts ? { incrs: COUNT_INCRS } : {}),
          values: (_u, vals) => vals.map((v) => (v === null ? '' : `${format(v)}${unit === '%' ? ' %' : ''}`)),
        },
      ],
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: colorOf(s, i), width: 2, spanGaps: false, points: { show: false }, ...(s.dash ? { dash: [6, 4] } : {}) }))],
      plugins: [bandsPlugin(bandsRef, theme), gatePlugin(gate, theme.gate, format)],
      hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)] },
    };
    const u = new uPlot(opts, data as uPlot.AlignedData, el);
    plot.current = u;
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
    // Rebuilt on shape or theme only (`shape` keys every option above): data flows through setData below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape, theme]);

  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData, true);
  }, [data]);

  const values = series.map((s, i) => {
    const v = hover !== null ? ((data[i + 1] as Array<number | null>)[hover] ?? null) : latest(s.points.filter((p) => p.at >= from));
    return v;
  });
  const at = hover !== null ? new Date((data[0][hover] ?? 0) * 1000).toLocaleTimeString() : 'latest';
  const described = series.map((s, i) => `${s.label} ${values[i] === null ? 'no data' : `${format(values[i]!)} ${unit}`}`).join(', ');
  return (
    <figure className="card chart" style={{ margin: 0 }}>
      <figcaption>
        <b>{title}</b>
        <span className="muted small">
          {unit} · {windowWords(windowMs)} · local time
        </span>
        <div className="chart-legend small" data-testid="chart-legend" aria-live="off">
          <span className="muted">{at}:</span>
          {series.map((s, i) => (
            <span key={s.label} data-series={s.label}>
              <i style={{ background: theme.series[(s.color ?? i) % theme.series.length], ...(s.dash ? { opacity: 0.6 } : {}) }} />
              {s.label} <b>{values[i] === null ? '—' : `${format(values[i]!)} ${unit}`}</b>
            </span>
          ))}
        </div>
      </figcaption>
      <div className="chart-box" ref={box} role="img" aria-label={`${title}, ${windowWords(windowMs)}: ${described}`} style={{ minHeight: height }} />
      {!hasData && <div className="muted small chart-empty">No samples in this window yet{note ? '' : '.'}</div>}
      {note && <div className="muted small">{note}</div>}
    </figure>
  );
}
