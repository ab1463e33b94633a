// The in-flight override against the serve plan: a worker declaring more concurrent requests than its
// engine was sized for (999 against 24) queues them inside sglang, TTFT climbs past the gate and the
// gateway withdraws it. A serve the user runs (runtime external) is theirs to size: not checked.
import type { ServePlan } from '../../../shared/hardware.ts';
import type { Settings } from '../../../shared/settings.ts';

/** The sentence refusing `next`, or null when its in-flight override fits the plan (or there is no plan to hold it to). */
export function inflightRefusal(next: Settings, plan: ServePlan | null): string | null {
  const want = next.mining.maxInflightOverride;
  if (want === null || plan === null || plan.engines.length === 0 || next.mining.runtime === 'external') return null;
  // The override applies to each engine's worker: the smallest engine is the one it must fit.
  const perEngine = Math.min(...plan.engines.map((e) => e.declaredInflight));
  if (want <= perEngine) return null;
  return `In-flight limit ${want} is more than the serve plan allows (${perEngine} concurrent requests per engine on this hardware): the serve would queue the rest and TTFT would break the gate. Set at most ${perEngine}, or leave it empty to use the plan's limit.`;
}
