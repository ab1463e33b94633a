import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'engy-panel.mjs');

export interface HeadlessChild {
  url: string;
  origin: string;
  token: string;
  dataDir: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<number | null>;
}

/**
 * Starts `engy-panel headless --port 0` as a real child process and waits for its tokened URL.
 * The UI is the one `npm test` built (ENGY_RENDERER_DIR): parallel tests must not each build it.
 */
export async function startHeadlessChild(env: NodeJS.ProcessEnv, extraArgs: string[] = [], dataDir = mkdtempSync(join(tmpdir(), 'engy-e2e-')), startupMs = 30_000): Promise<HeadlessChild> {
  const child = spawn(process.execPath, [bin, 'headless', '--port', '0', '--data-dir', dataDir, ...extraArgs], { env: { ENGY_RENDERER_DIR: join(root, 'dist-renderer'), ...env, ENGY_FROM_SOURCE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`headless did not print a URL in ${startupMs / 1000} s:\n${out}`)), startupMs);
    const check = () => {
      const m = /Open: (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`headless exited with ${code}:\n${out}`)));
  });
  const u = new URL(url);
  return {
    url,
    origin: u.origin,
    token: u.searchParams.get('token')!,
    dataDir,
    child,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
