// The headless shell: the same services as the desktop app, in plain Node, served to a browser.
import { dirname, join } from 'node:path';
import { composeEngine, type Engine } from './compose.ts';
import type { FreeBytesAt } from './engine/lib/disk-free.ts';
import { startHeadlessServer, isLoopback, type HeadlessServer } from './transport/headless-server.ts';
import { WsTransport, type TransportLimits } from './transport/ws-transport.ts';
import { loadOrCreateToken } from './transport/token-file.ts';
import { removeEndpoint, writeEndpoint } from './transport/endpoint-file.ts';
import { describeError } from './process-guards.ts';
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
  /** A pinned token (ENGY_PANEL_TOKEN, --token-file); else the one kept in the data dir. */
  token?: string;
  /** Make a new kept token, revoking every URL handed out before. */
  rotateToken?: boolean;
  /** Transport limits (tests shorten the budgets). */
  limits?: Partial<TransportLimits>;
  /** 'demo' for `engy-panel demo`'s engine on its simulated network (compose/profiles.ts); default 'headless'. */
  profile?: 'headless' | 'demo';
  /** Tests: the rig's free disk bytes at a path (composeEngine's diskFreeBytes). */
  diskFreeBytes?: FreeBytesAt;
}

export interface RunningHeadless {
  engine: Engine;
  server: HeadlessServer;
  transport: WsTransport;
  stop(): Promise<void>;
}

export function rendererDir(): string {
  return process.env.ENGY_RENDERER_DIR ?? join(dirname(resourcesDir()), 'dist-renderer');
}

export async function startHeadless(opts: HeadlessOptions): Promise<RunningHeadless> {
  const engine = await composeEngine({
    dataDir: opts.dataDir,
    profile: opts.profile ?? 'headless',
    shell: 'headless',
    ...(opts.network ? { network: opts.network } : {}),
    ...(opts.echo ? { echo: opts.echo } : {}),
    ...(opts.diskFreeBytes ? { diskFreeBytes: opts.diskFreeBytes } : {}),
  });
  const log = engine.logs.logger('headless');
  const transport = new WsTransport(engine.table, engine.hub, {
    onInternal: (e) => log.error(`handler failed: ${describeError(e)}`),
    onWarn: (m) => log.warn(m),
    ...(opts.limits ? { limits: opts.limits } : {}),
  });
  let server: HeadlessServer;
  try {
    let token = opts.token;
    if (!token) {
      const kept = loadOrCreateToken(opts.dataDir, opts.rotateToken ?? false);
      if (kept.created) log.info(`made a new access token (${kept.path}): URLs printed before no longer open this engine`);
      token = kept.token;
    }
    server = await startHeadlessServer({
      host: opts.host,
      port: opts.port,
      staticDir: opts.staticDir ?? rendererDir(),
      transport,
      // Behind the same token as the UI: Prometheus sends it as a bearer token (docs/fleet-monitoring.md).
      routes: { '/metrics': metricsRoute(() => engine.renderMetrics()) },
      token,
      allowedHosts: (process.env.ENGY_PANEL_ALLOWED_HOSTS ?? '')
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
      onError: (e) => log.error(`an HTTP request failed: ${describeError(e)}`),
    });
  } catch (e) {
    await transport.dispose();
    await engine.dispose();
    throw e;
  }
  try {
    // For a fleet panel reaching this rig over SSH (--print-access): the port, which --port 0 picks at random.
    writeEndpoint(opts.dataDir, { port: server.port, pid: process.pid, version: engine.info.version });
  } catch (e) {
    log.warn(`the engine's port could not be recorded in the data dir (a fleet panel will not find it): ${describeError(e)}`);
  }
  if (!isLoopback(opts.host)) {
    log.warn(`listening on ${opts.host}: anyone who can reach this address and has the token controls this rig. Prefer an SSH tunnel to a loopback engine (docs/remote-control.md).`);
  }
  return {
    engine,
    server,
    transport,
    stop: async () => {
      try {
        removeEndpoint(opts.dataDir, process.pid);
      } catch {
        // a stale file is harmless: readers check the pid
      }
      await transport.dispose();
      await server.close();
      await engine.dispose();
    },
  };
}
