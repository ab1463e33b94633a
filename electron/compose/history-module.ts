// History: request rows kept bounded (older days become daily totals), chart series recorded from the
// mining feed's values and kept 7 days, and the history.* handlers the History and Mine pages query.
import { keepRequestHistoryBounded } from '../engine/store/request-totals.ts';
import { countRequestHistory, queryRequestHistory, querySelfAudits } from '../engine/store/request-history.ts';
import { SeriesStore } from '../engine/store/series-store.ts';
import { recordMiners, recordServe } from '../engine/store/series-recorder.ts';
import type { ChangeFeed } from './change-feed.ts';
import type { MiningView } from './mining-module.ts';
import type { Wiring } from './wiring.ts';

export function wireHistory(w: Wiring, miningFeed: ChangeFeed<MiningView>): void {
  w.module('history');
  const { db, logs } = w.rt;
  const log = logs.logger('app');
  w.add(keepRequestHistoryBounded(db, logs.logger('store')));
  const series = new SeriesStore(db);
  w.add(
    miningFeed.onDidView((v) => {
      try {
        recordServe(series, v.serve);
        recordMiners(series, v.miners, Date.now());
      } catch (e) {
        log.warn(`chart history not recorded: ${(e as Error).message}`);
      }
    }),
  );
  w.handle({
    'history.requests': (req) => queryRequestHistory(db, req),
    'history.count': (req) => countRequestHistory(db, req),
    'history.series': (req) => series.query(Date.now(), req.windowMs, req.points ?? 300, req.prefix ?? ''),
    'history.audits': (req) => querySelfAudits(db, req.limit),
  });
}
