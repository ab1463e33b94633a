// /metrics: stable engy_* names (docs/fleet-monitoring.md) fed from the mining and validating feeds, the
// event loop's lag, and the serves' own bodies read just before each scrape.
import { EngyMetrics } from '../engine/metrics/engy-metrics.ts';
import { watchEventLoopLag } from '../engine/metrics/event-loop-lag.ts';
import { feedMiningMetrics } from '../engine/metrics/mining-metrics.ts';
import { SnapshotFeeds } from '../engine/metrics/snapshot-feeds.ts';
import type { MiningController } from '../engine/roles/mining-controller.ts';
import type { ValidatorSnapshot } from '../../shared/validator.ts';
import type { ChangeFeed } from './change-feed.ts';
import type { MiningView } from './mining-module.ts';
import type { Wiring } from './wiring.ts';

export function wireMetrics(w: Wiring, mining: MiningController, miningFeed: ChangeFeed<MiningView>, validatorFeed: ChangeFeed<ValidatorSnapshot | null>): () => Promise<string> {
  w.module('metrics');
  const metrics = new EngyMetrics();
  const feeds = new SnapshotFeeds(metrics);
  w.add(watchEventLoopLag((seconds) => metrics.setEventLoopLag(seconds)));
  // The run is read once per change by the feed; the scrape reads it again as it is now (feedMiningMetrics says why).
  const miningMetrics = w.add(
    feedMiningMetrics(
      { onDidChange: (l) => miningFeed.onDidView(() => l()), minerSnapshots: () => mining.minerSnapshots(), serveSnapshot: () => mining.serveSnapshot(), sglangMetrics: () => mining.sglangMetrics() },
      feeds,
    ),
  );
  w.add(
    validatorFeed.onDidView((v) => {
      if (v) feeds.validator(v);
    }),
  );
  return () => {
    miningMetrics.beforeRender();
    return metrics.renderMetrics();
  };
}
