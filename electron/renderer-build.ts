// `engy-panel headless` in a checkout: the UI is not built yet right after `npm install`, or is older than
// its sources after a `git pull`. Build it (vite is a dev dependency, present in a checkout) instead of
// answering 503 or serving yesterday's UI. An installed app has no sources and no vite: it never tries.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { staleBecause } from './renderer-stamp.ts';

export interface BuildIo {
  stderr: (text: string) => void;
}

/** Runs `vite build` in `root`: true when it exited 0 (its output is printed when it did not). */
export type RendererBuilder = (root: string, io: BuildIo) => Promise<boolean>;

export interface BuildOptions {
  timeoutMs?: number;
  /** The build itself (tests inject one); `vite build` in the checkout by default. */
  build?: RendererBuilder;
}

const viteBin = (root: string) => join(root, 'node_modules', 'vite', 'bin', 'vite.js');

function viteBuild(timeoutMs: number): RendererBuilder {
  return (root, io) =>
    new Promise<boolean>((resolve) => {
      const child = spawn(process.execPath, [viteBin(root), 'build', '--logLevel', 'warn'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
      let tail = '';
      const keep = (d: Buffer) => (tail = (tail + d.toString()).slice(-4000));
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.on('error', () => {
        clearTimeout(timer);
        resolve(false);
      });
      child.on('exit', (c) => {
        clearTimeout(timer);
        if (c !== 0) io.stderr(tail);
        resolve(c === 0);
      });
    });
}

/** A checkout that can build its UI: the sources, the vite config and vite itself are all there. */
function canBuild(root: string): boolean {
  return existsSync(join(root, 'vite.config.ts')) && existsSync(join(root, 'renderer')) && existsSync(viteBin(root));
}

/** Why the build in `staticDir` should be redone, or null; a fingerprint that cannot be taken keeps the build. */
function whyStale(root: string, staticDir: string, io: BuildIo): string | null {
  try {
    return staleBecause(root, staticDir);
  } catch (e) {
    io.stderr(`Could not compare the built UI with its sources (${(e as Error).message}): serving the build as it is.\n`);
    return null;
  }
}

/** True when the UI is there (built now, rebuilt now, or kept); false (with a sentence printed) when there is none. */
export async function ensureRendererBuilt(staticDir: string, io: BuildIo, opts: BuildOptions = {}): Promise<boolean> {
  const root = dirname(staticDir);
  const build = opts.build ?? viteBuild(opts.timeoutMs ?? 600_000);
  const built = existsSync(join(staticDir, 'index.html'));
  if (built) {
    if (!canBuild(root)) return true; // an installed app: its UI is the one it shipped
    const why = whyStale(root, staticDir, io);
    if (why === null) return true;
    io.stderr(`The built UI is out of date (${why}): rebuilding it now (about a minute)...\n`);
    if ((await build(root, io)) && existsSync(join(staticDir, 'index.html'))) {
      io.stderr('The UI is rebuilt.\n');
      return true;
    }
    // A failed vite build empties the folder first: say plainly whether anything is left to serve.
    if (existsSync(join(staticDir, 'index.html'))) {
      io.stderr(`Rebuilding the UI failed (see above): serving the previous build; run \`npm run build:renderer\` in ${root} to see why.\n`);
      return true;
    }
    io.stderr(`Rebuilding the UI failed (see above): run \`npm run build:renderer\` in ${root} to see why; the engine runs meanwhile.\n`);
    return false;
  }
  if (!canBuild(root)) {
    io.stderr(`The UI is not built and this install cannot build it (no vite here): run \`npm run build:renderer\` in ${root}.\n`);
    return false;
  }
  io.stderr('The UI is not built yet: building it once now (about a minute)...\n');
  if ((await build(root, io)) && existsSync(join(staticDir, 'index.html'))) {
    io.stderr('The UI is built.\n');
    return true;
  }
  io.stderr(`Building the UI failed (see above): run \`npm run build:renderer\` in ${root} to see why; the engine runs meanwhile.\n`);
  return false;
}
