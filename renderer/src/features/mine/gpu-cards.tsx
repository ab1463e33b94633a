// The live per-GPU cards: each card's newest sample with its units, and the throttle reasons nvidia-smi
// gives right now as words. Pure over the serve snapshot (the chart beside them is gpu-live-panel.tsx).
// Figures are tagged data-gpu-figure, not data-figure: those name one figure per page, these repeat per card.
import { THROTTLE_WORDS } from '../../../../shared/gpu-throttle.ts';
import type { GpuPoint, GpuSeries } from '../../../../shared/serve.ts';
import { toUnit } from '../../../../shared/series.ts';
import { ago } from '../common/format.ts';
import type { ThrottleSpan } from './throttle-spans.ts';

const dash = '—';
const whole = (v: number | null | undefined, unit: string) => (v === null || v === undefined ? dash : `${Math.round(v).toLocaleString('en-US')} ${unit}`);

function powerText(p: GpuPoint): { v: string; sub: string | null } {
  if (p.powerDrawW === null) return { v: `${dash} (not reported)`, sub: null };
  const limit = p.powerLimitW ?? null;
  if (limit === null || limit <= 0) return { v: whole(p.powerDrawW, 'W'), sub: 'limit not reported' };
  return { v: `${whole(p.powerDrawW, 'W')} of ${whole(limit, 'W')}`, sub: `${Math.round((p.powerDrawW / limit) * 100)} % of the power limit` };
}

function memoryText(p: GpuPoint): string {
  if (p.memoryUsedMiB === null || p.memoryTotalMiB === null) return dash;
  return `${toUnit.gib(p.memoryUsedMiB).toFixed(1)} of ${toUnit.gib(p.memoryTotalMiB).toFixed(1)} GiB`;
}

function ThrottleBadge({ p }: { p: GpuPoint }) {
  const t = p.throttle;
  if (t === null || t === undefined)
    return (
      <span className="badge neutral" data-testid="gpu-throttle" data-throttled="unknown">
        throttle reasons not reported
      </span>
    );
  if (t.length === 0)
    return (
      <span className="badge ok" data-testid="gpu-throttle" data-throttled="no">
        not throttled
      </span>
    );
  const slowdown = t.some((r) => r !== 'sw-power-cap');
  return (
    <span className={`badge ${slowdown ? 'bad' : 'warn'}`} data-testid="gpu-throttle" data-throttled="yes">
      throttled: {t.map((r) => THROTTLE_WORDS[r]).join(', ')}
    </span>
  );
}

function GpuCard({ g, now }: { g: GpuSeries; now: number }) {
  const p = g.points.at(-1);
  if (!p) return null;
  const power = powerText(p);
  return (
    <div className="card stack gpu-card" data-testid="gpu-card" data-gpu={g.index} aria-label={`GPU ${g.index}`} role="group">
      <div className="spread">
        <b>
          GPU {g.index} <span className="muted small">{g.name}</span>
        </b>
        <ThrottleBadge p={p} />
      </div>
      <dl className="kv">
        <dt>Power</dt>
        <dd data-gpu-figure="power">
          {power.v}
          {power.sub && <span className="muted small"> · {power.sub}</span>}
        </dd>
        <dt>Utilisation</dt>
        <dd data-gpu-figure="util">{whole(p.utilizationPct, '%')}</dd>
        <dt>Fan</dt>
        <dd data-gpu-figure="fan">{p.fanPct === null || p.fanPct === undefined ? `${dash} (no fan reported)` : whole(p.fanPct, '%')}</dd>
        <dt>Clocks</dt>
        <dd data-gpu-figure="clocks">
          SM {whole(p.smClockMHz, 'MHz')} · memory {whole(p.memClockMHz, 'MHz')}
        </dd>
        <dt>Memory</dt>
        <dd data-gpu-figure="mem">{memoryText(p)}</dd>
        <dt>Temperature</dt>
        <dd data-gpu-figure="temp">{whole(p.temperatureC, '°C')}</dd>
      </dl>
      <div className="muted small" data-testid="gpu-sampled">
        sampled {ago(p.at, now)}
      </div>
    </div>
  );
}

export function GpuCards({ gpus, now }: { gpus: readonly GpuSeries[]; now: number }) {
  return (
    <div className="grid cols-3" data-testid="gpu-cards">
      {gpus.map((g) => (
        <GpuCard key={g.index} g={g} now={now} />
      ))}
    </div>
  );
}

/** The chart's events in words: screen readers and the e2e read these, the shading shows the same spans. */
export function ThrottleSummary({ spans, windowLabel }: { spans: readonly ThrottleSpan[]; windowLabel: string }) {
  if (spans.length === 0) {
    return (
      <p className="small muted" data-testid="throttle-events" data-count={0}>
        No throttling in the {windowLabel}.
      </p>
    );
  }
  const byGpu = new Map<number, { power: number; slowdown: number }>();
  for (const s of spans) {
    const c = byGpu.get(s.gpu) ?? { power: 0, slowdown: 0 };
    c[s.kind]++;
    byGpu.set(s.gpu, c);
  }
  const plural = (n: number, what: string) => `${n} ${what} event${n === 1 ? '' : 's'}`;
  const parts = [...byGpu.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([gpu, c]) => `GPU ${gpu}: ${[c.power > 0 ? plural(c.power, 'power-cap') : '', c.slowdown > 0 ? plural(c.slowdown, 'slowdown') : ''].filter(Boolean).join(', ')}`);
  return (
    <p className="small" data-testid="throttle-events" data-count={spans.length}>
      Throttling in the {windowLabel}: {parts.join('; ')}.
    </p>
  );
}
