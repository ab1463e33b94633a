// How much time the self-audit chart spans. Audits are sparse (one sampled request every few minutes
// on a real rig, every few seconds on the simulated network): a fixed 24 h window put a new rig's
// points in a sliver at its right edge. The window is the shortest of a few steps that holds every
// audit kept, so its label ("last 30 min") stays put while time passes.
const STEPS_MS = [2, 5, 10, 30, 60, 3 * 60, 6 * 60, 12 * 60, 24 * 60].map((min) => min * 60_000);
export const AUDIT_WINDOW_MAX_MS = STEPS_MS[STEPS_MS.length - 1]!;

export function auditWindowMs(ats: readonly number[], now: number): number {
  let oldest = Infinity;
  for (const at of ats) if (Number.isFinite(at) && at < oldest) oldest = at;
  if (oldest === Infinity) return AUDIT_WINDOW_MAX_MS;
  // A little room before the oldest point, so it is not drawn on the axis.
  const span = (now - oldest) * 1.05;
  return STEPS_MS.find((w) => w >= span) ?? AUDIT_WINDOW_MAX_MS;
}
