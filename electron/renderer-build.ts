// `engy-panel headless` right after `npm install` in a checkout: the UI is not built yet. Build it
// once on first start (vite is a dev dependency, present in a checkout) instead of answering 503.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface BuildIo {
  stderr: (text: string) => void;
}

/** True when the UI is there, or was built now; false (with a sentence printed) when it could not be. */
export async function ensureRendererBuilt(staticDir: string, io: BuildIo, timeoutMs = 600_000): Promise<boolean> {
  if (existsSync(join(staticDir, 'index.html'))) return true;
  const root = dirname(staticDir);
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!existsSync(join(root, 'vite.config.ts')) || !existsSync(vite)) {
    io.stderr(`The UI is not built and this install cannot build it (no vite here): run \`npm run build:renderer\` in ${root}.\n`);
    return false;
  }
  io.stderr('The UI is not built yet: building it once now (about a minute)...\n');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    let tail = '';
    const keep = (d: Buffer) => (tail = (tail + d.toString()).slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', () => resolve(null));
    child.on('exit', (c) => {
      clearTimeout(timer);
      if (c !== 0) io.stderr(tail);
      resolve(c);
    });
  });
  if (code === 0 && existsSync(join(staticDir, 'index.html'))) {
    io.stderr('The UI is built.\n');
    return true;
  }
  io.stderr(`Building the UI failed (see above): run \`npm run build:renderer\` in ${root} to see why; the engine runs meanwhile.\n`);
  return false;
}
