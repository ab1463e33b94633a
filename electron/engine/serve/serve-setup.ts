import type { ServePlan } from '../../../shared/hardware.ts';
import type { Clock } from '../lib/clock.ts';
import type { LogHub } from '../lib/logger.ts';
import { EngineSupervisor } from './engine-supervisor.ts';
import type { EngineTimings } from './engine-timings.ts';
import type { GpuSampler } from './gpu-sampler.ts';
import type { FetchFn } from '../lib/fetch.ts';
import { buildLaunchSpec, type LaunchSpec, type RuntimeTarget } from './launch-plan.ts';
import { findFreePort } from './port-check.ts';
import { defaultSpawn, type SpawnFn } from './process-group.ts';
import type { ProcessRegistry } from './process-registry.ts';
import { ServeFleet } from './serve-fleet.ts';

export const DEFAULT_BASE_PORT = 30000;

export interface LaunchPlanOptions {
  modelPath: string;
  target: RuntimeTarget;
  /** trimModuleDir() for a mining serve; null for an audit/recompute serve. */
  trimDir: string | null;
  cacheDir?: string;
  host?: string;
  basePort?: number;
}

/** One launch spec per engine of the hardware plan, each on a port found free just now. */
export async function planLaunches(plan: ServePlan, opts: LaunchPlanOptions): Promise<LaunchSpec[]> {
  const host = opts.host ?? '127.0.0.1';
  const taken = new Set<number>();
  const specs: LaunchSpec[] = [];
  for (const e of plan.engines) {
    const port = await findFreePort((opts.basePort ?? DEFAULT_BASE_PORT) + e.index, host, taken);
    taken.add(port);
    specs.push(buildLaunchSpec(e, { modelPath: opts.modelPath, port, host, trimDir: opts.trimDir, ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}) }, opts.target));
  }
  return specs;
}

export interface FleetServices {
  logHub?: LogHub;
  spawn?: SpawnFn;
  fetch?: FetchFn;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  timings?: Partial<EngineTimings>;
  gpuSampler?: GpuSampler | null;
  registry?: ProcessRegistry;
}

function removeContainerWith(docker: string, spawn: SpawnFn, env: NodeJS.ProcessEnv): (name: string) => Promise<void> {
  return (name) =>
    new Promise((resolve) => {
      const p = spawn(docker, ['rm', '-f', name], { stdio: 'ignore', env });
      p.once('error', () => resolve());
      p.once('exit', () => resolve());
    });
}

export function createServeFleet(plan: ServePlan, specs: LaunchSpec[], trimDir: string | null, services: FleetServices = {}): ServeFleet {
  const spawn = services.spawn ?? defaultSpawn;
  const runtime = specs[0]?.runtime ?? 'python';
  const engines = specs.map(
    (spec) =>
      new EngineSupervisor({
        index: spec.engineIndex,
        spec,
        trimDir,
        spawn,
        ...(services.fetch ? { fetch: services.fetch } : {}),
        ...(services.clock ? { clock: services.clock } : {}),
        ...(services.env ? { env: services.env } : {}),
        ...(services.timings ? { timings: services.timings } : {}),
        ...(services.logHub ? { logger: services.logHub.logger(`serve:${spec.engineIndex}`) } : {}),
        ...(spec.runtime === 'docker' ? { removeContainer: removeContainerWith(spec.command, spawn, services.env ?? process.env) } : {}),
        ...(services.registry ? { registry: services.registry } : {}),
      }),
  );
  return new ServeFleet({ runtime, engines, maxInflight: plan.maxInflight, gpuSampler: services.gpuSampler ?? null });
}

/** A serve the user runs: the panel only watches its health and metrics. */
export function createExternalFleet(urls: string[], maxInflight: number, services: FleetServices = {}): ServeFleet {
  const engines = urls.map(
    (url, index) =>
      new EngineSupervisor({
        index,
        spec: null,
        url,
        ...(services.fetch ? { fetch: services.fetch } : {}),
        ...(services.clock ? { clock: services.clock } : {}),
        ...(services.timings ? { timings: services.timings } : {}),
        ...(services.logHub ? { logger: services.logHub.logger(`serve:${index}`) } : {}),
      }),
  );
  return new ServeFleet({ runtime: 'external', engines, maxInflight, gpuSampler: services.gpuSampler ?? null });
}
