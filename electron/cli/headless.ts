import type { CliCommand } from './types.ts';
import { defineCommand, parseCommand, UsageError } from './args.ts';
import { hostSyntaxProblem, listenHostProblem } from './arg-rules.ts';
import { cliCommand } from './run-command.ts';
import { describeError } from '../engine/lib/fs-errors.ts';
import { defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { isLoopback } from '../transport/headless-server.ts';
import { sshTunnelCommand } from '../transport/tunnel-hint.ts';
import { installProcessGuards } from '../process-guards.ts';
import { readKeptToken } from '../transport/token-file.ts';
import { readEndpoint } from '../transport/endpoint-file.ts';
import { CONTRACT_VERSION } from '../../shared/api.ts';
import { appVersion } from '../runtime.ts';
import type { CliIo } from './types.ts';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * What a fleet panel reads over SSH (docs/fleet.md): the kept token and, when an engine runs on this
 * data dir, its loopback port. Exit 3 when there is no token yet (the engine never started here).
 */
function printAccess(dataDir: string, json: boolean, io: CliIo): number {
  const token = readKeptToken(dataDir);
  if (!token) {
    io.stderr(`No headless token in ${dataDir}: start the engine once (engy-panel headless --data-dir ${dataDir}, or engy-panel service start).\n`);
    return 3;
  }
  if (!json) {
    io.stdout(`${token}\n`);
    return 0;
  }
  const ep = readEndpoint(dataDir);
  const running = ep !== null && processAlive(ep.pid);
  io.stdout(`${JSON.stringify({ token, port: running ? ep.port : null, running, version: running ? ep.version : appVersion(), contract: running ? ep.contract : CONTRACT_VERSION })}\n`);
  return 0;
}

export const HEADLESS = defineCommand({
  usage: `usage: engy-panel headless [--port N] [--host H] [--data-dir D] [--token-file F] [--rotate-token]
       engy-panel headless --print-token|--print-access [--data-dir D]
The token is kept in the data dir (0600) so open tabs survive a restart; --rotate-token makes a new one;
ENGY_PANEL_TOKEN (or --token-file) pins it for a Prometheus scraper.
--print-token prints the kept token; --print-access prints one JSON line (token, port, running, version,
contract) for a fleet panel reading it over SSH. Neither starts an engine.
`,
  options: {
    port: { kind: 'int', min: 0, max: 65535 },
    host: { kind: 'string' },
    'data-dir': { kind: 'string' },
    'token-file': { kind: 'string' },
    'rotate-token': { kind: 'boolean' },
    'print-token': { kind: 'boolean' },
    'print-access': { kind: 'boolean' },
  },
});

/**
 * `engy-panel headless [--port N] [--host H] [--data-dir D] [--rotate-token]`: the engine for rigs
 * without a display. The token is kept in the data dir (so open tabs survive a restart);
 * --rotate-token makes a new one; ENGY_PANEL_TOKEN (or --token-file) pins it for a scraper.
 */
export const run: CliCommand = cliCommand('headless', async (args, io) => {
  const { values: v } = parseCommand(args, HEADLESS);
  const host = v.host ?? '127.0.0.1';
  const badHost = hostSyntaxProblem(host);
  if (badHost) throw new UsageError(badHost, HEADLESS.usage);
  const port = v.port ?? 7853;
  const dataDir = v['data-dir'] ?? defaultHeadlessDataDir(io.env);
  if (v['print-token'] === true || v['print-access'] === true) return printAccess(dataDir, v['print-access'] === true, io);
  const tokenFile = v['token-file'];
  let pinned: string | undefined;
  try {
    pinned = tokenFile ? (await import('node:fs')).readFileSync(tokenFile, 'utf8').trim() : io.env.ENGY_PANEL_TOKEN?.trim();
  } catch (e) {
    io.stderr(`engy-panel headless: ${describeError(e, { what: 'the token file', fix: 'give --token-file the path of a file holding the token' })}\n`);
    return 2;
  }
  if (pinned !== undefined && !/^[A-Za-z0-9_-]{24,}$/.test(pinned)) {
    io.stderr('A pinned token must be at least 24 characters of A-Z, a-z, 0-9, _ or -: generate one with `openssl rand -base64 32 | tr "+/" "-_" | tr -d =`.\n');
    return 2;
  }
  const unreachable = await listenHostProblem(host);
  if (unreachable) {
    io.stderr(`engy-panel headless: ${unreachable}\n`);
    return 1;
  }
  const { startHeadless, rendererDir } = await import('../headless.ts');
  // A checkout right after `npm install` has no built UI: build it once (not when ENGY_RENDERER_DIR names one).
  if (!io.env.ENGY_RENDERER_DIR) await (await import('../renderer-build.ts')).ensureRendererBuilt(rendererDir(), io);
  let running;
  try {
    running = await startHeadless({ host, port, dataDir, rotateToken: v['rotate-token'] === true, ...(pinned ? { token: pinned } : {}) });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') io.stderr(`Port ${port} is in use: stop what uses it or pass --port N (0 picks a free one).\n`);
    else io.stderr(`The engine could not start: ${describeError(e)}\n`);
    return 1;
  }
  if (!isLoopback(host)) {
    io.stderr(`WARNING: --host ${host} exposes the engine beyond this machine. Anyone with the URL below controls this rig; prefer an SSH tunnel (docs/remote-control.md).\n`);
  }
  const live = running;
  installProcessGuards({ log: live.engine.logs.logger('process'), shutdown: () => live.stop() });
  const tunnel = isLoopback(host) ? `From another computer, first run there: ${sshTunnelCommand(running.server.port, io.env)}\n` : '';
  io.stdout(`engy panel engine running (data dir ${dataDir}).\nOpen: ${running.server.url}\n${tunnel}`);
  const sig = await io.stopSignal;
  io.stdout(`${sig}: stopping...\n`);
  await running.stop();
  return 0;
});
