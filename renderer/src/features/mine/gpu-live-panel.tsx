// Issue 28 item 3: per-GPU health on the Mine page, live. The engine samples nvidia-smi once a second
// while this panel is open (useGpuWatch holds the lease) and every 5 s otherwise; the power figure is the
// same serve snapshot the profit card reads, so the draw shown here is the draw that is costed.
import type { ServeSnapshot } from '../../../../shared/serve.ts';
import { gpuSeriesValue } from '../../../../shared/series.ts';
import { windowLabel } from '../../../../shared/miner.ts';
import { UplotChart, type ChartSeries } from '../charts/uplot-chart.tsx';
import { useNow } from '../common/use-now.ts';
import { GpuCards, ThrottleSummary } from './gpu-cards.tsx';
import { throttleSpans } from './throttle-spans.ts';
import { useGpuWatch } from './use-gpu-watch.ts';
import { powerAxisMaxW } from './power-axis.ts';

/** What the live chart spans: the sampler keeps 240 points, 4 minutes at the watched pace. */
export const LIVE_WINDOW_MS = 4 * 60_000;

export function GpuLivePanel({ serve }: { serve: ServeSnapshot }) {
  useGpuWatch();
  const now = useNow(1000);
  const from = now - LIVE_WINDOW_MS;
  const words = windowLabel(LIVE_WINDOW_MS);
  const spans = throttleSpans(serve.gpus, from);
  const power: ChartSeries[] = serve.gpus.flatMap((g) => [
    { label: `GPU ${g.index} draw`, color: g.index, points: g.points.map((p) => ({ at: p.at, v: gpuSeriesValue.power(p) })) },
    ...(g.points.some((p) => p.powerLimitW != null) ? [{ label: `GPU ${g.index} limit`, color: g.index, dash: true, points: g.points.map((p) => ({ at: p.at, v: p.powerLimitW ?? null })) }] : []),
  ]);
  const maxLimit = Math.max(0, ...serve.gpus.flatMap((g) => g.points.map((p) => p.powerLimitW ?? 0)));
  return (
    <section className="stack" aria-label="GPUs, live" data-testid="gpu-live">
      <div className="spread">
        <h2>GPUs, live</h2>
        <span className="muted small">nvidia-smi, one sample a second while this page is open (every 5 s otherwise)</span>
      </div>
      {serve.gpuError && (
        <p className="small error-box" role="status">
          GPU sampling: {serve.gpuError}
        </p>
      )}
      <GpuCards gpus={serve.gpus} now={now} />
      {serve.gpus.length > 0 && (
        <>
          <UplotChart
            title="GPU power and throttling"
            unit="W"
            range={[0, powerAxisMaxW(maxLimit)]}
            windowMs={LIVE_WINDOW_MS}
            now={now}
            series={power}
            format={(v) => v.toFixed(0)}
            bands={spans.map((s) => ({ from: s.from, to: s.to, tone: s.kind === 'power' ? 'warn' : 'bad' }))}
            note="Dashed: each card's power limit. Shaded in the warning colour: a power cap; in red: a thermal or hardware slowdown (nvidia-smi clocks_event_reasons)."
          />
          <ThrottleSummary spans={spans} windowLabel={words} />
        </>
      )}
    </section>
  );
}
