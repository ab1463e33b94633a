import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PINNED_SGLANG_VERSION } from './launch-plan.ts';
import { defaultSpawn, LineSplitter, type SpawnFn } from './process-group.ts';
import { appVenvDir, venvPython } from './runtime-python.ts';

export type VenvStep = 'creating-venv' | 'downloading' | 'installing' | 'done';

export interface VenvProgress {
  step: VenvStep;
  line: string;
  /** Package being downloaded and its size as pip prints it ("887.9 MB"), when the line says. */
  download?: { name: string; size: string };
}

export interface VenvInstallOptions {
  basePython: string;
  dataDir: string;
  version?: string;
  spawn?: SpawnFn;
  env?: NodeJS.ProcessEnv;
  onProgress?: (p: VenvProgress) => void;
  signal?: AbortSignal;
}

function run(spawn: SpawnFn, cmd: string, args: string[], env: NodeJS.ProcessEnv, onLine: (l: string) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const tail: string[] = [];
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env, ...(signal ? { signal } : {}) });
    const split = new LineSplitter((l) => {
      tail.push(l);
      if (tail.length > 20) tail.shift();
      onLine(l);
    });
    child.stdout?.on('data', (c: Buffer) => split.push(c));
    child.stderr?.on('data', (c: Buffer) => split.push(c));
    child.once('error', (e) => reject(e));
    child.once('close', (code) => {
      split.end();
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.slice(0, 3).join(' ')} failed (exit ${code}):\n${tail.join('\n')}`));
    });
  });
}

/**
 * Creates the app's own Python environment under the data dir and installs the pinned sglang
 * into it, streaming pip's lines as progress. Resolves with the environment's interpreter.
 */
export async function installSglangVenv(opts: VenvInstallOptions): Promise<string> {
  const spawn = opts.spawn ?? defaultSpawn;
  const env = { ...(opts.env ?? process.env), PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONUNBUFFERED: '1' };
  const version = opts.version ?? PINNED_SGLANG_VERSION;
  const dir = appVenvDir(opts.dataDir);
  const emit = (p: VenvProgress) => opts.onProgress?.(p);
  await mkdir(dirname(dir), { recursive: true });
  emit({ step: 'creating-venv', line: `creating ${dir}` });
  await run(spawn, opts.basePython, ['-m', 'venv', dir], env, (line) => emit({ step: 'creating-venv', line }), opts.signal);
  const python = venvPython(dir);
  let step: VenvStep = 'downloading';
  await run(
    spawn,
    python,
    ['-m', 'pip', 'install', '--progress-bar', 'off', `sglang==${version}`],
    env,
    (line) => {
      if (/^Installing collected packages/.test(line)) step = 'installing';
      const dl = /Downloading\s+(\S+?)(?:-\d[^\s]*)?\.(?:whl|tar\.gz)\s+\(([^)]+)\)/.exec(line);
      emit(dl ? { step, line, download: { name: dl[1]!, size: dl[2]! } } : { step, line });
    },
    opts.signal,
  );
  emit({ step: 'done', line: `sglang ${version} installed in ${dir}` });
  return python;
}
