import type { ServerResponse } from 'node:http';
import { METRICS_CONTENT_TYPE } from './engy-metrics.ts';
import { errorMessage } from '../../../shared/errors.ts';
import { threadSlices } from '../lib/thread-slices.ts';

/**
 * A GET /metrics handler for the headless server's `routes` table (which checks the token first).
 * A render that throws answers 500 so Prometheus marks the scrape failed instead of storing half a body.
 */
export function metricsRoute(render: () => Promise<string> | string): (res: ServerResponse) => Promise<void> {
  return async (res) => {
    let body: string;
    try {
      // The scrape's synchronous part is the slice of the thread it takes.
      body = await threadSlices.run('metrics scrape', render);
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`metrics failed: ${errorMessage(e)}\n`);
      return;
    }
    res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' });
    res.end(body);
  };
}
