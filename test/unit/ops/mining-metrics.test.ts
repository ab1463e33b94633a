// The mining run's /metrics: fed on each change event, and read again at each scrape, because some states
// change with time alone (a miner turns "active" once its traffic outlasts the probe window, with no event).
import { describe, expect, it } from 'vitest';
import { EngyMetrics } from '../../../electron/engine/metrics/engy-metrics.ts';
import { feedMiningMetrics, type MiningMetricsSource } from '../../../electron/engine/metrics/mining-metrics.ts';
import { SnapshotFeeds } from '../../../electron/engine/metrics/snapshot-feeds.ts';
import { Emitter } from '../../../electron/engine/lib/emitter.ts';
import type { MinerSnapshot } from '../../../shared/miner.ts';

describe('mining metrics feed', () => {
  it('shows a state reached without an event at the next scrape, and stops following once disposed', async () => {
    const changes = new Emitter<void>();
    let phase: MinerSnapshot['phase'] = 'probing';
    const source: MiningMetricsSource = {
      onDidChange: changes.event,
      minerSnapshots: () => [{ phase, legs: [], stats: { inflight: 0 }, recent: [] } as unknown as MinerSnapshot],
      serveSnapshot: () => null,
      sglangMetrics: () => [],
    };
    const metrics = new EngyMetrics();
    const feed = feedMiningMetrics(source, new SnapshotFeeds(metrics));
    changes.fire();
    expect(await metrics.renderMetrics()).toContain('engy_miner_state{state="probing"} 1\n');
    phase = 'active'; // no event
    feed.beforeRender();
    expect(await metrics.renderMetrics()).toContain('engy_miner_state{state="active"} 1\n');
    await feed.dispose();
    phase = 'pulled';
    changes.fire();
    expect(await metrics.renderMetrics()).toContain('engy_miner_state{state="active"} 1\n');
  });
});
