import { join } from 'node:path';
import type { HardwareReport } from '../../../shared/hardware.ts';
import type { ServeServiceSnapshot, ServeSettings, ServeSetupPhase } from '../../../shared/serve.ts';
import type { ExecText } from '../lib/exec-text.ts';
import type { Clock } from '../lib/clock.ts';
import type { Disposable } from '../lib/disposable.ts';
import { Emitter } from '../lib/emitter.ts';
import type { LogHub } from '../lib/logger.ts';
import { checkCheckpointFolder } from './checkpoint/checkpoint-folder.ts';
import { CheckpointService } from './checkpoint/checkpoint-service.ts';
import type { EngineTimings } from './engine-timings.ts';
import type { GpuSampler } from './gpu-sampler.ts';
import type { FetchFn } from '../lib/fetch.ts';
import { PINNED_DOCKER_IMAGE, type RuntimeTarget } from './launch-plan.ts';
import type { SpawnFn } from './process-group.ts';
import { ProcessRegistry } from './process-registry.ts';
import { detectRuntimes } from './runtime-detect.ts';
import type { ServeFleet } from './serve-fleet.ts';
import { createExternalFleet, createServeFleet, planLaunches } from './serve-setup.ts';

export interface ServeServiceOptions {
  dataDir: string;
  logHub: LogHub;
  /** The hardware engine's detectHardware, bound to the data dir. */
  detectHardware: () => Promise<HardwareReport>;
  settings: () => ServeSettings;
  /** The checkpoint the serve runs: repo, the panel's folder for it, and the catalog's published root. */
  checkpoint: { repo: string; dir: string; publishedRoot: string | null };
  /**
   * trimModuleDir() for a mining serve; null for an audit/recompute serve (full hidden states).
   * A function so a missing hook surfaces as a blocker, not a crash at construction.
   */
  trimDir: () => string | null;
  spawn?: SpawnFn;
  fetch?: FetchFn;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  exec?: ExecText;
  timings?: Partial<EngineTimings>;
  gpuSampler?: GpuSampler | null;
}

/**
 * The serve side for the UI: decides the runtime, checks the checkpoint and the plan, builds the
 * fleet and runs it. What stops it from starting is a blocker in the snapshot, in plain words.
 */
export class ServeService implements Disposable {
  readonly checkpoint: CheckpointService;
  private readonly o: ServeServiceOptions;
  private readonly registry: ProcessRegistry;
  private readonly changes = new Emitter<ServeServiceSnapshot>();
  readonly onDidChange = this.changes.event;
  private fleet: ServeFleet | null = null;
  private fleetSub: Disposable | null = null;
  private phase: ServeSetupPhase = 'idle';
  private blocker: ServeServiceSnapshot['blocker'] = null;
  private runtimes: ServeServiceSnapshot['runtimes'] = null;
  private version = 0;

  constructor(opts: ServeServiceOptions) {
    this.o = opts;
    this.registry = new ProcessRegistry(join(opts.dataDir, 'serve', 'engines.json'));
    this.checkpoint = new CheckpointService({
      ...opts.checkpoint,
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
      logger: opts.logHub.logger('checkpoint'),
    });
    this.checkpoint.onDidChange(() => this.emit());
  }

  snapshot(): ServeServiceSnapshot {
    return {
      version: this.version,
      phase: this.phase,
      blocker: this.blocker ? { ...this.blocker } : null,
      fleet: this.fleet ? this.fleet.snapshot() : null,
      runtimes: this.runtimes,
      checkpoint: this.checkpoint.snapshot(),
    };
  }

  /** Prepares and starts the engines; resolves once they are launching (or with a blocker). */
  async start(): Promise<ServeServiceSnapshot> {
    if (this.phase === 'preparing' || this.phase === 'running') return this.snapshot();
    this.setPhase('preparing', null);
    const reaped = await this.registry.reapLeftovers();
    if (reaped.length > 0) this.o.logHub.logger('serve').warn(`ended ${reaped.length} serve process group(s) a previous run left behind: ${reaped.join(', ')}`);
    const settings = this.o.settings();
    const services = {
      logHub: this.o.logHub,
      ...(this.o.fetch ? { fetch: this.o.fetch } : {}),
      ...(this.o.clock ? { clock: this.o.clock } : {}),
      ...(this.o.timings ? { timings: this.o.timings } : {}),
      gpuSampler: this.o.gpuSampler ?? null,
    };
    try {
      if (settings.runtime === 'external') {
        const urls = settings.externalUrls ?? [];
        if (urls.length === 0) return this.block('No serve address is set for the external runtime.', 'Enter the URL of the sglang serve you run, e.g. http://127.0.0.1:30000.');
        this.run(createExternalFleet(urls, 0, services));
        return this.snapshot();
      }
      const [report, runtimes] = await Promise.all([
        this.o.detectHardware(),
        detectRuntimes({ dataDir: this.o.dataDir, python: settings.python ?? null, docker: settings.docker ?? 'docker', ...(this.o.exec ? { exec: this.o.exec } : {}) }),
      ]);
      this.runtimes = runtimes;
      if (!report.plan) {
        const why = report.reasons.find((r) => r.severity === 'blocker')?.text ?? 'This machine cannot serve the model.';
        return this.block(why, 'See the hardware check for what would make it fit, or run a light validator, which needs no GPU.');
      }
      const kind = settings.runtime === 'auto' ? runtimes.recommended : settings.runtime;
      if (kind === null) return this.block('Nothing here can run sglang.', runtimes.notes.join(' '));
      const target: RuntimeTarget =
        kind === 'docker'
          ? { kind: 'docker', docker: settings.docker ?? 'docker', image: PINNED_DOCKER_IMAGE, shmSize: '32g' }
          : { kind: 'python', python: settings.python ?? runtimes.python?.python ?? 'python3' };
      const modelPath = settings.checkpointDir ?? this.o.checkpoint.dir;
      if (settings.checkpointDir) {
        const own = checkCheckpointFolder(settings.checkpointDir);
        if (!own.complete)
          return this.block(
            `The checkpoint folder ${settings.checkpointDir} is not complete: ${own.problems.slice(0, 3).join('; ')}.`,
            'Choose the folder that holds config.json and every .safetensors shard, or let the panel download it.',
          );
      } else if ((await this.checkpoint.refresh()).state !== 'complete') {
        const size = this.checkpoint.snapshot().downloadBytes;
        return this.block('The checkpoint is not downloaded yet.', `Download it first${size ? ` (about ${Math.round(size / 1e9)} GB)` : ''}; an interrupted download resumes where it stopped.`);
      }
      let trimDir: string | null;
      try {
        trimDir = this.o.trimDir();
      } catch (e) {
        return this.block(`The hidden-states trim could not be found: ${(e as Error).message}.`, 'Reinstall the panel; a mining serve must not start without it.');
      }
      const specs = await planLaunches(report.plan, { modelPath, target, trimDir, cacheDir: join(this.o.dataDir, 'serve-cache') });
      this.run(
        createServeFleet(report.plan, specs, trimDir, {
          ...services,
          spawn: this.o.spawn,
          ...(this.o.env ? { env: this.o.env } : {}),
          registry: this.registry,
        }),
      );
      return this.snapshot();
    } catch (e) {
      return this.block(`The serve could not be prepared: ${(e as Error).message}`, 'Try again; if it repeats, the log has the details.');
    }
  }

  async stop(): Promise<void> {
    const f = this.fleet;
    if (f) await f.stop();
    if (this.phase !== 'blocked') this.setPhase('idle', null);
  }

  /** For a last-chance process exit hook. */
  killAllNow(): void {
    this.fleet?.killAllNow();
  }

  async dispose(): Promise<void> {
    await this.fleet?.dispose();
    await this.fleetSub?.dispose();
    await this.checkpoint.dispose();
    this.changes.clear();
  }

  private run(fleet: ServeFleet): void {
    void this.fleetSub?.dispose();
    void this.fleet?.dispose();
    this.fleet = fleet;
    this.fleetSub = fleet.onDidChange(() => this.emit());
    this.setPhase('running', null);
    fleet.start();
  }

  private block(message: string, fix: string): ServeServiceSnapshot {
    this.setPhase('blocked', { message, fix });
    return this.snapshot();
  }

  private setPhase(phase: ServeSetupPhase, blocker: ServeServiceSnapshot['blocker']): void {
    this.phase = phase;
    this.blocker = blocker;
    this.emit();
  }

  private emit(): void {
    this.version++;
    this.changes.fire(this.snapshot());
  }
}
