// The headless shell: the same services as the desktop app, in plain Node, served to a browser.
import { dirname, join } from 'node:path';
import { composeEngine, type Engine } from './compose.ts';
import { startHeadlessServer, isLoopback, type HeadlessServer } from './transport/headless-server.ts';
import { WsTransport } from './transport/ws-transport.ts';
import { resourcesDir } from './engine/lib/model-catalog.ts';
import { metricsRoute } from './engine/metrics/metrics-route.ts';
import type { NetworkProfile } from '../shared/settings.ts';

export interface HeadlessOptions {
  host: string;
  port: number;
  dataDir: string;
  network?: NetworkProfile;
  staticDir?: string;
  echo?: (line: string) => void;
  token?: string;
}

export interface RunningHeadless {
  engine: Engine;
  server: HeadlessServer;
  stop(): Promise<void>;
}

export function rendererDir(): string {
  return process.env.ENGY_RENDERER_DIR ?? join(dirname(resourcesDir()), 'dist-renderer');
}

export async function startHeadless(opts: HeadlessOptions): Promise<RunningHeadless> {
  const engine = await composeEngine({ dataDir: opts.dataDir, shell: 'headless', ...(opts.network ? { network: opts.network } : {}), ...(opts.echo ? { echo: opts.echo } : {}) });
  const log = engine.logs.logger('headless');
  const transport = new WsTransport(engine.table, engine.hub, (e) => log.error(`handler failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`));
  let server: HeadlessServer;
  try {
    server = await startHeadlessServer({
      host: opts.host,
      port: opts.port,
      staticDir: opts.staticDir ?? rendererDir(),
      transport,
      // Behind the same token as the UI: Prometheus sends it as a bearer token (docs/fleet-monitoring.md).
      routes: { '/metrics': metricsRoute(() => engine.renderMetrics()) },
      ...(opts.token ? { token: opts.token } : {}),
    });
  } catch (e) {
    await transport.dispose();
    await engine.dispose();
    throw e;
  }
  if (!isLoopback(opts.host)) {
    log.warn(`listening on ${opts.host}: anyone who can reach this address and has the token controls this rig. Prefer an SSH tunnel to a loopback engine (docs/remote-control.md).`);
  }
  return {
    engine,
    server,
    stop: async () => {
      await transport.dispose();
      await server.close();
      await engine.dispose();
    },
  };
}
