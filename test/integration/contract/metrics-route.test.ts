import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHeadless } from '../../../electron/headless.ts';
import { ENGY_METRIC_NAMES } from '../../../electron/engine/metrics/engy-metrics.ts';

describe('the headless engine serves /metrics to Prometheus behind its token', () => {
  it('refuses a scrape without the token and serves every documented family with it', async () => {
    const token = 'pinned-token-for-prometheus-0123456789';
    const app = await startHeadless({ host: '127.0.0.1', port: 0, dataDir: mkdtempSync(join(tmpdir(), 'engy-metrics-')), token });
    try {
      const url = `http://127.0.0.1:${app.server.port}/metrics`;
      expect((await fetch(url)).status).toBe(401);
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      const typed = new Map([...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].map((m) => [m[1], m[2]]));
      for (const [name, type] of Object.entries(ENGY_METRIC_NAMES)) expect(typed.get(name), name).toBe(type);
      expect(text).toMatch(/^engy_event_loop_lag_seconds \d/m);
    } finally {
      await app.stop();
    }
  });
});
