// The mining run's part of /metrics: every worker and the serve fleet on each change, the engines' own
// sglang bodies just before each scrape. Kept out of compose so a test can wire a real run the same way.
import type { MinerSnapshot } from '../../../shared/miner.ts';
import type { EngineSnapshot, ServeSnapshot } from '../../../shared/serve.ts';
import type { Disposable } from '../lib/disposable.ts';
import type { SnapshotFeeds } from './snapshot-feeds.ts';

export interface MiningMetricsSource {
  onDidChange(listener: () => void): Disposable;
  minerSnapshots(): MinerSnapshot[];
  serveSnapshot(): ServeSnapshot | null;
  sglangMetrics(): { engine: EngineSnapshot; text: string }[];
}

export interface MiningMetricsFeed extends Disposable {
  /** Call before rendering /metrics: takes each serving engine's latest scrape. */
  beforeRender(): void;
}

export function feedMiningMetrics(mining: MiningMetricsSource, feeds: SnapshotFeeds): MiningMetricsFeed {
  const sub = mining.onDidChange(() => {
    feeds.miners(mining.minerSnapshots());
    feeds.serve(mining.serveSnapshot());
  });
  return {
    beforeRender: () => feeds.sglang(mining.sglangMetrics()),
    dispose: () => sub.dispose(),
  };
}
