import type { ServeEnginePlan } from '../../../shared/hardware.ts';
import type { ServeRuntimeKind } from '../../../shared/serve.ts';
import { shellLine } from './shell-quote.ts';

/** The gateway spec needs 229376 in + 32768 out; a shorter context is only used when the plan says memory forces it. */
export const FULL_CONTEXT_LENGTH = 262144;
export const DEFAULT_SERVED_MODEL_NAME = 'Qwen3.6';
/** sglang tag the upstream miner's trim hook was verified against; the docker runtime pins the same. */
export const PINNED_SGLANG_VERSION = '0.5.12.post1';
export const PINNED_DOCKER_IMAGE = `lmsysorg/sglang:v${PINNED_SGLANG_VERSION}`;
const CONTAINER_MODEL_DIR = '/model';
const CONTAINER_TRIM_DIR = '/engy-trim';
const CONTAINER_CACHE_DIR = '/engy-cache';

export interface LaunchOptions {
  modelPath: string;
  port: number;
  host?: string;
  servedModelName?: string;
  /**
   * Directory holding the hidden-states trim hook, put on PYTHONPATH. Only for a mining serve:
   * an audit/recompute serve must return full hidden states, so pass null there.
   */
  trimDir: string | null;
  /** Persistent JIT caches (DeepGEMM, Triton): a cold kernel cache costs 10-20 minutes per start. */
  cacheDir?: string;
}

export interface PythonRuntimeTarget {
  kind: 'python';
  python: string;
}

export interface DockerRuntimeTarget {
  kind: 'docker';
  docker: string;
  image: string;
  shmSize: string;
}

export type RuntimeTarget = PythonRuntimeTarget | DockerRuntimeTarget;

/** Everything needed to start one engine, and to show the user what will run. */
export interface LaunchSpec {
  engineIndex: number;
  runtime: Exclude<ServeRuntimeKind, 'external'>;
  command: string;
  args: string[];
  /** Variables added to the inherited environment. */
  env: Record<string, string>;
  host: string;
  port: number;
  url: string;
  gpuIndices: number[];
  trim: boolean;
  /** Set for docker: the container to remove if the CLI process dies before it. */
  containerName: string | null;
  shellLine: string;
}

/** The `sglang.launch_server` flags for one engine of the hardware plan. */
export function sglangArgs(plan: ServeEnginePlan, modelPath: string, host: string, port: number, servedModelName: string): string[] {
  const context = plan.contextLimited ? plan.contextLength : Math.max(plan.contextLength, FULL_CONTEXT_LENGTH);
  const args = [
    '--model-path',
    modelPath,
    '--served-model-name',
    servedModelName,
    '--tp-size',
    String(plan.tp),
    '--trust-remote-code',
    '--mem-fraction-static',
    String(plan.memFractionStatic),
    '--kv-cache-dtype',
    plan.kvCacheDtype,
    '--context-length',
    String(context),
    '--max-running-requests',
    String(plan.maxRunningRequests),
    '--chunked-prefill-size',
    String(plan.chunkedPrefillSize),
    '--enable-return-hidden-states',
    '--enable-cache-report',
    '--enable-metrics',
    '--log-level',
    'info',
    '--host',
    host,
    '--port',
    String(port),
  ];
  if (plan.cpuOffloadGb > 0) args.push('--cpu-offload-gb', String(plan.cpuOffloadGb));
  args.push(...plan.extraArgs);
  return args;
}

function cacheEnv(cacheDir: string): Record<string, string> {
  return {
    DG_JIT_CACHE_DIR: `${cacheDir}/deepgemm`,
    TRITON_CACHE_DIR: `${cacheDir}/triton`,
    TORCHINDUCTOR_CACHE_DIR: `${cacheDir}/inductor`,
  };
}

export function buildLaunchSpec(plan: ServeEnginePlan, opts: LaunchOptions, target: RuntimeTarget): LaunchSpec {
  const host = opts.host ?? '127.0.0.1';
  const name = opts.servedModelName ?? DEFAULT_SERVED_MODEL_NAME;
  const base = {
    engineIndex: plan.index,
    host,
    port: opts.port,
    url: `http://${host}:${opts.port}`,
    gpuIndices: [...plan.gpuIndices],
    trim: opts.trimDir !== null,
  };
  if (target.kind === 'python') {
    const env: Record<string, string> = { CUDA_VISIBLE_DEVICES: plan.gpuIndices.join(','), ...plan.env };
    if (opts.cacheDir) Object.assign(env, cacheEnv(opts.cacheDir));
    if (opts.trimDir !== null) env.PYTHONPATH = opts.trimDir;
    const args = ['-m', 'sglang.launch_server', ...sglangArgs(plan, opts.modelPath, host, opts.port, name)];
    return {
      ...base,
      runtime: 'python',
      command: target.python,
      args,
      env,
      containerName: null,
      shellLine: shellLine(env, target.python, args),
    };
  }
  // Docker: the container sees its GPUs renumbered from 0, so CUDA_VISIBLE_DEVICES stays unset
  // and `--gpus device=` picks the cards; the port is published on loopback only.
  const containerName = `engy-serve-${plan.index}-${opts.port}`;
  const inner: Record<string, string> = { ...plan.env };
  if (opts.cacheDir) Object.assign(inner, cacheEnv(CONTAINER_CACHE_DIR));
  if (opts.trimDir !== null) inner.PYTHONPATH = CONTAINER_TRIM_DIR;
  const args = [
    'run',
    '--rm',
    '--init',
    '--name',
    containerName,
    '--gpus',
    `"device=${plan.gpuIndices.join(',')}"`,
    '--ipc=host',
    '--shm-size',
    target.shmSize,
    '--ulimit',
    'memlock=-1',
    '--ulimit',
    'stack=67108864',
    '-p',
    `127.0.0.1:${opts.port}:${opts.port}`,
    '-v',
    `${opts.modelPath}:${CONTAINER_MODEL_DIR}:ro`,
  ];
  if (opts.trimDir !== null) args.push('-v', `${opts.trimDir}:${CONTAINER_TRIM_DIR}:ro`);
  if (opts.cacheDir) args.push('-v', `${opts.cacheDir}:${CONTAINER_CACHE_DIR}`);
  for (const [k, v] of Object.entries(inner)) args.push('-e', `${k}=${v}`);
  args.push(target.image, 'python3', '-m', 'sglang.launch_server', ...sglangArgs(plan, CONTAINER_MODEL_DIR, '0.0.0.0', opts.port, name));
  return {
    ...base,
    runtime: 'docker',
    command: target.docker,
    args,
    env: {},
    containerName,
    shellLine: shellLine({}, target.docker, args),
  };
}

/**
 * The environment the child really gets: inherited, plus the spec's additions. For a serve
 * without the trim hook, the hook's directory is also removed from an inherited PYTHONPATH.
 */
export function childEnv(spec: LaunchSpec, inherited: NodeJS.ProcessEnv, trimDir: string | null): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...inherited, ...spec.env, PYTHONUNBUFFERED: '1' };
  const exclude = new Set<string>();
  if (!spec.trim && trimDir !== null) exclude.add(trimDir);
  if (spec.trim && spec.runtime === 'python' && inherited.PYTHONPATH) {
    env.PYTHONPATH = `${spec.env.PYTHONPATH ?? ''}:${inherited.PYTHONPATH}`;
  }
  if (exclude.size > 0 && env.PYTHONPATH) {
    const kept = env.PYTHONPATH.split(':').filter((p) => p.length > 0 && !exclude.has(p));
    if (kept.length > 0) env.PYTHONPATH = kept.join(':');
    else delete env.PYTHONPATH;
  }
  return env;
}
