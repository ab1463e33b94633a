import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunningHeadless } from '../headless.ts';
import { DEMO_ENTRY, type DemoEntry, type DemoNetwork } from './demo-contract.ts';
import type { CliCommand, CliIo } from './types.ts';
import { defineCommand, parseCommand } from './args.ts';
import { cliCommand } from './run-command.ts';
import { errorMessage } from '../../shared/errors.ts';

/**
 * `engy-panel demo [--headless] [--port N] [--data-dir D]`: the whole flow (mine, get audited, earn,
 * validate, survive a provider outage) against a simulated network on loopback. No GPU, no internet,
 * nothing real: its own data dir, a SIMULATED banner in the UI, and it refuses a mainnet data dir.
 * The network is made of the test doubles, so it runs from a source checkout only.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const ENTRY = join(ROOT, ...DEMO_ENTRY);

export function defaultDemoDataDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.length > 0 ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'engy-panel-demo');
}

/** The simulated network's one dev-only entry point, checked against DemoEntry where it is written. */
async function loadEntry(): Promise<DemoEntry> {
  return ((await import(pathToFileURL(ENTRY).href)) as { demoEntry: DemoEntry }).demoEntry;
}

/**
 * The Electron binary when this checkout has one installed. Read from electron's path.txt, never by
 * require('electron'): that starts a download when the binary is missing (and there may be no internet).
 */
function electronBinary(): string | null {
  try {
    const dir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
    const rel = readFileSync(join(dir, 'path.txt'), 'utf8').trim();
    const bin = join(dir, 'dist', rel);
    return rel.length > 0 && existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

const BANNER = [
  '',
  '==================================================================',
  '  SIMULATED NETWORK: a local dev chain, provider, gateway and',
  '  buyers on 127.0.0.1. Nothing here touches mainnet or earns TAO.',
  '==================================================================',
  '',
].join('\n');

async function runHeadlessApp(net: DemoNetwork, port: number, io: CliIo): Promise<RunningHeadless> {
  // A fresh clone has no built UI: build it once, as `engy-panel headless` does, instead of serving "UI is not built".
  if (!io.env.ENGY_RENDERER_DIR) {
    const { rendererDir } = await import('../headless.ts');
    await (await import('../renderer-build.ts')).ensureRendererBuilt(rendererDir(), io);
  }
  const app = await net.startApp({ port });
  io.stdout(`${BANNER}\nThe panel (headless engine; mining and validating started):\n  Open: ${app.server.url}\n\n`);
  return app;
}

const DEMO = defineCommand({
  usage: 'usage: engy-panel demo [--headless] [--port N] [--data-dir D]\n  the whole flow against a simulated network on loopback (no GPU, no internet)\n',
  options: { headless: { kind: 'boolean' }, port: { kind: 'int', min: 0, max: 65535 }, 'data-dir': { kind: 'string' } },
});

export const run: CliCommand = cliCommand('demo', async (args, io) => {
  const { values: v } = parseCommand(args, DEMO);
  const headless = v.headless === true;
  const port = v.port ?? 7854;
  const dataDir = v['data-dir'] ?? defaultDemoDataDir(io.env);
  if (!existsSync(ENTRY)) {
    io.stderr(
      `The demo runs from a source checkout only: its simulated network is made of the test doubles in test/doubles/, which are not here (${ENTRY}). Clone the repository and run \`npm run demo\`.\n`,
    );
    return 1;
  }
  const { settingsNetwork, startSimulatedNetwork, runStory } = await loadEntry();
  if (settingsNetwork(dataDir) === 'mainnet') {
    io.stderr(`${dataDir} holds settings for the real network (mainnet): the demo never uses a real data dir. Pass another --data-dir (default ${defaultDemoDataDir(io.env)}).\n`);
    return 2;
  }
  io.stdout(`Starting the simulated network (data dir ${dataDir})...\n`);
  let net: DemoNetwork;
  try {
    net = await startSimulatedNetwork({ dataDir, log: (l) => io.stdout(`[network] ${l}\n`) });
  } catch (e) {
    io.stderr(`The simulated network could not start: ${errorMessage(e)}\n`);
    return 1;
  }
  let electron: ChildProcess | null = null;
  try {
    const bin = headless ? null : electronBinary();
    const built = existsSync(join(ROOT, 'dist', 'electron', 'main.js'));
    if (!headless && bin && built) {
      // The desktop app reads the demo's settings from its own data dir; Start is the user's click there.
      electron = spawn(bin, [ROOT, `--user-data-dir=${dataDir}`], { stdio: 'inherit' });
      io.stdout(`${BANNER}\nThe desktop app is opening on the demo data dir: press Start on the Mine and Validate pages.\n\n`);
    } else {
      if (!headless) {
        io.stdout(
          bin
            ? 'Electron is installed but the app is not built (npm run build): running headless instead.\n'
            : 'Electron cannot be launched in this checkout (its binary is not installed here): running headless instead; open the URL below in a browser.\n',
        );
      }
      await runHeadlessApp(net, port, io);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.stderr(code === 'EADDRINUSE' ? `Port ${port} is in use: pass --port N (0 picks a free one).\n` : `The app could not start: ${errorMessage(e)}\n`);
    await net.stop();
    return 1;
  }
  const story = runStory(net, { log: (l) => io.stdout(`${l}\n`), validator: () => net.app?.engine.validating.snapshot() ?? null });
  const child = electron;
  const exited = child ? new Promise<string>((r) => child.once('exit', () => r('the desktop app closed'))) : new Promise<string>(() => undefined);
  const why = await Promise.race([io.stopSignal, exited]);
  io.stdout(`${why}: stopping the demo...\n`);
  story.stop();
  if (child && child.exitCode === null) child.kill('SIGTERM');
  await net.stop();
  io.stdout('Demo stopped: every simulated service is closed.\n');
  return 0;
});
