import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitWithParentEnv } from '../doubles/fake-sglang/spawn.ts';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'engy-panel.mjs');
/** Generous (a loaded two-core machine starts the engine slowly) yet inside the 180 s hook timeout, so this wait, not vitest, gives up and kills. */
const START_MS = 120_000;

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
export async function startHeadlessChild(env: NodeJS.ProcessEnv, extraArgs: string[] = [], dataDir = mkdtempSync(join(tmpdir(), 'engy-e2e-')), startupMs = START_MS): Promise<HeadlessChild> {
  const child = spawn(process.execPath, [bin, 'headless', '--port', '0', '--data-dir', dataDir, ...extraArgs], {
    // A fake serve this engine's supervisor starts goes with the engine, even one killed before its cleanup.
    env: exitWithParentEnv({ ENGY_RENDERER_DIR: join(root, 'dist-renderer'), ...env, ENGY_FROM_SOURCE: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  // Every way out of the wait (no URL in time, an early exit, an error) leaves no child behind:
  // a rejected start used to leave a headless engine running long after its test run.
  const url = await new Promise<string>((resolve, reject) => {
    const fail = (e: Error) => {
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      reject(e);
    };
    const timer = setTimeout(() => fail(new Error(`headless did not print a URL in ${startupMs / 1000} s:\n${out}`)), startupMs);
    const check = () => {
      const m = /Open: (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('error', (e) => fail(new Error(`headless could not start: ${e.message}\n${out}`)));
    child.once('exit', (code) => fail(new Error(`headless exited with ${code}:\n${out}`)));
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
        // Already ended, by itself or by a signal (a test that SIGKILLed it): no exit event will come.
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        // A child that ignores SIGTERM is killed outright rather than outliving its test.
        const hard = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.once('exit', (code) => {
          clearTimeout(hard);
          resolve(code);
        });
        child.kill('SIGTERM');
      }),
  };
}
