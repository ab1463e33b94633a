// Throttling as spans of time for the live chart: consecutive samples of a card held down for the same
// kind of reason (power cap, or a thermal/hardware slowdown) form one event, shaded from its first
// throttled sample to the sample that no longer says so (nvidia-smi reports a state, not an edge).
import { throttleKind, type ThrottleKind, type ThrottleReason } from '../../../../shared/gpu-throttle.ts';
import type { GpuSeries } from '../../../../shared/serve.ts';

export interface ThrottleSpan {
  gpu: number;
  kind: ThrottleKind;
  from: number;
  to: number;
  reasons: ThrottleReason[];
}

/** A last throttled sample with nothing after it is drawn this wide (one watched sample's interval). */
const OPEN_END_MS = 1_000;

export function throttleSpans(gpus: readonly GpuSeries[], from: number): ThrottleSpan[] {
  const spans: ThrottleSpan[] = [];
  for (const g of gpus) {
    const open = new Map<ThrottleKind, ThrottleSpan>();
    const points = g.points.filter((p) => p.at >= from);
    for (const p of points) {
      const now = new Map<ThrottleKind, ThrottleReason[]>();
      for (const r of p.throttle ?? []) now.set(throttleKind(r), [...(now.get(throttleKind(r)) ?? []), r]);
      // A kind that stopped ends at this sample; one that goes on reaches it.
      for (const [kind, span] of open) {
        span.to = p.at;
        if (!now.has(kind)) open.delete(kind);
      }
      for (const [kind, reasons] of now) {
        const span = open.get(kind);
        if (span) {
          for (const r of reasons) if (!span.reasons.includes(r)) span.reasons.push(r);
        } else {
          const s: ThrottleSpan = { gpu: g.index, kind, from: p.at, to: p.at + OPEN_END_MS, reasons: [...reasons] };
          spans.push(s);
          open.set(kind, s);
        }
      }
    }
    for (const span of open.values()) span.to = Math.max(span.to, (points.at(-1)?.at ?? span.from) + OPEN_END_MS);
  }
  return spans.sort((a, b) => a.from - b.from || a.gpu - b.gpu);
}
