export interface Series {
  label: string;
  color: string;
  points: Array<{ at: number; v: number | null }>;
}

interface Props {
  title: string;
  unit: string;
  series: Series[];
  /** A horizontal target line (e.g. the TTFT p99 gate). */
  target?: { value: number; label: string };
  height?: number;
  format?: (v: number) => string;
}

const W = 560;

/** A small dependency-free SVG line chart: time on x, value on y, optional target line. */
export function LineChart({ title, unit, series, target, height = 150, format = (v) => v.toFixed(v >= 100 ? 0 : 1) }: Props) {
  const all = series.flatMap((s) => s.points.filter((p) => p.v !== null)) as Array<{ at: number; v: number }>;
  const latest = series.map((s) => [...s.points].reverse().find((p) => p.v !== null)?.v ?? null);
  const pad = { l: 44, r: 10, t: 10, b: 22 };
  const h = height;
  if (all.length < 2) {
    return (
      <figure className="card" style={{ margin: 0 }}>
        <figcaption className="spread">
          <b>{title}</b>
          <span className="muted small">{unit}</span>
        </figcaption>
        <div className="muted small" style={{ height: h - 30, display: 'grid', placeItems: 'center' }}>
          Waiting for data: the chart fills in as samples arrive.
        </div>
      </figure>
    );
  }
  const t0 = Math.min(...all.map((p) => p.at));
  const t1 = Math.max(...all.map((p) => p.at));
  const vmax = Math.max(...all.map((p) => p.v), target?.value ?? 0) * 1.1 || 1;
  const x = (t: number) => pad.l + ((t - t0) / Math.max(1, t1 - t0)) * (W - pad.l - pad.r);
  const y = (v: number) => h - pad.b - (v / vmax) * (h - pad.t - pad.b);
  const path = (s: Series) => {
    let d = '';
    let pen = false;
    for (const p of s.points) {
      if (p.v === null) {
        pen = false;
        continue;
      }
      d += `${pen ? 'L' : 'M'}${x(p.at).toFixed(1)},${y(p.v).toFixed(1)}`;
      pen = true;
    }
    return d;
  };
  const span = Math.round((t1 - t0) / 1000);
  return (
    <figure className="card" style={{ margin: 0 }}>
      <figcaption className="spread">
        <b>{title}</b>
        <span className="row small">
          {series.map((s, i) => (
            <span key={s.label}>
              <i style={{ display: 'inline-block', width: 10, height: 3, background: s.color, verticalAlign: 3, marginRight: 4 }} />
              {s.label} {latest[i] === null ? '—' : `${format(latest[i]!)} ${unit}`}
            </span>
          ))}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${h}`} width="100%" role="img" aria-label={`${title} chart`}>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line x1={pad.l} x2={W - pad.r} y1={y(vmax * f)} y2={y(vmax * f)} stroke="var(--border)" strokeWidth="1" />
            <text x={pad.l - 6} y={y(vmax * f) + 4} textAnchor="end" fontSize="10" fill="var(--muted)">
              {format(vmax * f)}
            </text>
          </g>
        ))}
        {target && (
          <g>
            <line x1={pad.l} x2={W - pad.r} y1={y(target.value)} y2={y(target.value)} stroke="var(--bad)" strokeDasharray="5 4" strokeWidth="1.5" />
            <text x={W - pad.r} y={y(target.value) - 4} textAnchor="end" fontSize="10" fill="var(--bad)">
              {target.label}
            </text>
          </g>
        )}
        {series.map((s) => (
          <path key={s.label} d={path(s)} fill="none" stroke={s.color} strokeWidth="2" strokeLinejoin="round" />
        ))}
        <text x={pad.l} y={h - 6} fontSize="10" fill="var(--muted)">
          {span >= 120 ? `${Math.round(span / 60)} min ago` : `${span} s ago`}
        </text>
        <text x={W - pad.r} y={h - 6} textAnchor="end" fontSize="10" fill="var(--muted)">
          now
        </text>
      </svg>
    </figure>
  );
}
