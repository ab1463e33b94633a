// TEST DOUBLE helper: starts the fake sglang serve as a real child process (its own process
// group, like the app's supervisor does), collects its log lines and reports the bound port.
// For tests of other areas (miner, supervisor) that just need a running serve.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const FAKE_SGLANG_MAIN = join(HERE, 'main.ts');
export const CHECKPOINT_TINY = join(HERE, '..', '..', 'fixtures', 'checkpoint-tiny');
export const READY_LINE = 'The server is fired up and ready to roll!';
/** An environment that ties a spawned fake serve's life to its spawner's (main.ts, exitWithParent). */
export function exitWithParentEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, FAKE_SGLANG_EXIT_WITH_PARENT: '1' };
}

export interface FakeSglang {
  proc: ChildProcess;
  /** Every stderr+stdout line so far. */
  lines: string[];
  /** Resolves with the first line (past or future) matching re; rejects if the process exits first. */
  waitForLine(re: RegExp): Promise<string>;
  /** The port from the "Uvicorn running on" line. */
  port(): Promise<number>;
  url(): Promise<string>;
  /** The URL once the serve logged READY_LINE (warmup done): what a test waits for before its first request. */
  ready(): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/** Spawns `node main.ts --model-path <checkpoint-tiny> --port 0 ...extraArgs`. */
export function startFakeSglang(extraArgs: string[] = [], opts: { modelPath?: string; env?: NodeJS.ProcessEnv } = {}): FakeSglang {
  const args = [FAKE_SGLANG_MAIN, '--model-path', opts.modelPath ?? CHECKPOINT_TINY];
  if (!extraArgs.includes('--port')) args.push('--port', '0');
  args.push(...extraArgs);
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: exitWithParentEnv(opts.env) });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  let exitedFlag = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('exit', (code, signal) => {
      exitedFlag = true;
      resolve({ code, signal });
      for (const l of listeners) l();
    });
  });
  for (const stream of [proc.stdout, proc.stderr]) {
    let rest = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const parts = (rest + chunk).split(/\r?\n|\r/);
      rest = parts.pop() ?? '';
      lines.push(...parts);
      for (const l of listeners) l();
    });
  }
  const waitForLine = (re: RegExp): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const hit = lines.find((l) => re.test(l));
        if (hit !== undefined) {
          listeners.delete(check);
          resolve(hit);
        } else if (exitedFlag) {
          listeners.delete(check);
          reject(new Error(`fake sglang exited before a line matched ${re}:\n${lines.slice(-20).join('\n')}`));
        }
      };
      listeners.add(check);
      check();
    });
  const port = async (): Promise<number> => {
    const line = await waitForLine(/Uvicorn running on http:\/\/[^:]+:(\d+)/);
    return Number(/:(\d+) /.exec(line)?.[1]);
  };
  return {
    proc,
    lines,
    waitForLine,
    port,
    url: async () => `http://127.0.0.1:${await port()}`,
    ready: async () => {
      const url = `http://127.0.0.1:${await port()}`;
      await waitForLine(/fired up and ready to roll/);
      return url;
    },
    exited,
    stop: async () => {
      if (!exitedFlag && proc.pid !== undefined) {
        try {
          process.kill(-proc.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await exited;
    },
  };
}
