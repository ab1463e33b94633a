// `engy-panel validate` through provider outages and chain drops (test/helpers/validate-chaos.ts): it
// must live through all of them, say when ticks start failing and when they succeed again, land the
// next epoch exactly once, stop cleanly on SIGTERM, and end within a memory bound of where it started.
import { describe, expect, it } from 'vitest';
import { runValidateChaos } from '../../helpers/validate-chaos.ts';

/** RSS may grow by at most this much over the storm (chain client reconnects must not accumulate). */
const RSS_BOUND_KIB = 64 * 1024;

describe('engy-panel validate under chaos', () => {
  it('survives provider outages (503, resets, garbage, refused), dropped chain connections and a chain down and back', { timeout: 240_000 }, async () => {
    const r = await runValidateChaos();
    const context = r.log.slice(-4000);
    console.log(`validate chaos: ${r.seconds.toFixed(1)} s, RSS ${r.rssBeforeKiB} -> ${r.rssAfterKiB} KiB, faults ${JSON.stringify(r.faults)}`);
    expect(r.exitCode, context).toBe(0);
    expect(r.log).toContain('[validator] stopped');
    expect(r.log).not.toMatch(/\n\s+at \S+ \(/);
    expect(r.faults.providerOutages).toBe(4);
    expect(r.faults.chainDown).toBe(1);
    expect(r.faults.chainDrops).toBeGreaterThanOrEqual(1);
    expect(r.lastApplied).toBe(6);
    // Each epoch landed fresh exactly once, whatever failed around it.
    const fresh = r.submissions
      .filter((s) => s.ok && s.kind === 'fresh')
      .map((s) => s.epochIndex)
      .sort();
    expect(fresh).toEqual([4, 5, 6]);
    expect(r.ticks.filter((t) => t.outcome === 'applied')).toHaveLength(3);
    expect(r.log).toContain('[health] the chain answers again');
    expect(r.acceptedWeightSets).toBe(r.submissions.filter((s) => s.ok).length);
    expect(r.rssAfterKiB - r.rssBeforeKiB, `RSS ${r.rssBeforeKiB} -> ${r.rssAfterKiB} KiB`).toBeLessThan(RSS_BOUND_KIB);
  });
});
