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
  /** Call before rendering /metrics: reads the run as it is now, with each serving engine's latest scrape. */
  beforeRender(): void;
}

export function feedMiningMetrics(mining: MiningMetricsSource, feeds: SnapshotFeeds): MiningMetricsFeed {
  const observe = () => {
    feeds.miners(mining.minerSnapshots());
    feeds.serve(mining.serveSnapshot());
  };
  const sub = mining.onDidChange(observe);
  return {
    // Also read now: some states change with time alone (a miner turns "active" once traffic outlasts the
    // probe window, with no event), and change events are coalesced. Requests are still counted once.
    beforeRender: () => {
      observe();
      feeds.sglang(mining.sglangMetrics());
    },
    dispose: () => sub.dispose(),
  };
}
