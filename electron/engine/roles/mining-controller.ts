// "Start mining" end to end: the serve (managed or external) comes up first, then the miner
// dials the gateway: one worker per managed engine, started ~15 s apart as each engine serves;
// one worker over every URL of an external serve. Stopping closes the legs before the serve goes away.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { MinerSnapshot } from '../../../shared/miner.ts';
import type { LiveRehearsal, ServeSnapshot } from '../../../shared/serve.ts';
import { AppFailure } from '../../../shared/errors.ts';
import type { HardwareService } from '../hardware/hardware-service.ts';
import { Emitter } from '../lib/emitter.ts';
import type { Disposable } from '../lib/disposable.ts';
import type { LogHub } from '../lib/logger.ts';
import { minerModel } from '../lib/model-catalog.ts';
import type { DataPaths } from '../lib/paths.ts';
import type { SettingsStore } from '../settings/settings-store.ts';
import type { Database } from '../store/database.ts';
import type { MinerKeyStore } from '../wallet/miner-key-store.ts';
import { helloHw } from '../miner/hello-hw.ts';
import { createProofPort } from '../miner/proof-adapter.ts';
import { GpuSampler } from '../serve/gpu-sampler.ts';
import type { GpuWatch } from '../serve/gpu-watch.ts';
import { PINNED_DOCKER_IMAGE } from '../serve/launch-plan.ts';
import { detectRuntimes, type DetectRuntimesOptions } from '../serve/runtime-detect.ts';
import type { ServeFleet } from '../serve/serve-fleet.ts';
import { createExternalFleet, createServeFleet, planLaunches, type FleetServices } from '../serve/serve-setup.ts';
import { StartStagger } from '../miner/start-stagger.ts';
import { MinerWorkers, planWorkers, type WorkerPlan } from './miner-workers.ts';
import { hostname } from 'node:os';
import { defaultWorkerName } from '../miner/identity.ts';
import { persistentWorkerId } from '../miner/worker-id-store.ts';
import type { ProofPool } from '../proof/proof-pool.ts';
import { trimModuleDir } from '../serve/trim-module.ts';
import { defaultCheckpointDir } from '../serve/checkpoint/checkpoint-folder.ts';
import { ProcessRegistry } from '../serve/process-registry.ts';
import type { MiningRunSummary, RehearsalResult } from '../../../shared/preflight.ts';
import { rehearsalTargets } from '../preflight/rehearsal.ts';
import { errorMessage } from '../../../shared/errors.ts';
import { readRunSummary, summarizeRun, writeRunSummary } from '../preflight/last-run.ts';
import { PROVIDER_HOST } from '../../../shared/network.ts';

export interface MiningControllerDeps {
  settings: SettingsStore;
  hardware: HardwareService;
  minerKeys: MinerKeyStore;
  logs: LogHub;
  db: Database;
  paths: DataPaths;
  versions: Record<string, string>;
  /** Simulated network: faster self-audits and a short probe window (GPUs are still sampled when nvidia-smi answers). */
  simulated: boolean;
  /** Tests: where to look for Python and Docker, the serves' environment and timings, the gap between workers' starts. */
  overrides?: {
    runtimes?: Omit<DetectRuntimesOptions, 'dataDir'>;
    fleet?: Pick<FleetServices, 'env' | 'timings'>;
    staggerMs?: number;
  };
  /** Start's gate: refuses with every pre-flight blocker (compose passes the PreflightService). */
  preflight?: { gate(role: 'mine'): Promise<unknown> };
  /** Worker threads for body parsing and proofs, off the thread that answers the gateway (absent: on it). */
  proofPool?: ProofPool;
  /** The file keeping each worker's id across restarts (absent: a new id per start, a new qualification). */
  workerIdsFile?: string;
  /** The probe-wave rehearsal run against the serve once it is up, before the miner dials (skipped on request). */
  rehearse?: (serveUrls: string[]) => Promise<RehearsalResult>;
  /** Clients watching the live GPU panel: the sampler goes to 1 Hz while one does. */
  gpuWatch?: GpuWatch;
}

export interface MiningStartOptions {
  /** Go live as soon as the serve is up, without the rehearsal (for experts who know their rig). */
  skipRehearsal?: boolean;
}

/** Who a worker is to the gateway: its name (as the miner would derive it) and its id. */
export interface WorkerIdentity {
  workerName: string;
  workerId: string | null;
}

export class MiningController implements Disposable {
  private fleet: ServeFleet | null = null;
  private workers: MinerWorkers | null = null;
  private subs: Disposable[] = [];
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly d: MiningControllerDeps;
  private starting: Promise<void> | null = null;
  private rehearsal: LiveRehearsal | null = null;
  private startedAt = 0;
  private lastRun: MiningRunSummary | null;
  private readonly lastRunFile: string;

  constructor(d: MiningControllerDeps) {
    this.d = d;
    this.lastRunFile = join(d.paths.root, 'mining-last-run.json');
    this.lastRun = readRunSummary(this.lastRunFile);
  }

  /** The pool this controller's miners prove in (null: they prove on the engine's thread). */
  get proofPool(): ProofPool | null {
    return this.d.proofPool ?? null;
  }

  /** A worker's name and its kept id: the same name, model and capacity keep the id across restarts. */
  workerIdentity(p: Pick<WorkerPlan, 'serveUrls' | 'maxInflight' | 'workerName'>): WorkerIdentity {
    const model = minerModel(this.d.settings.get().mining.modelId).id;
    const workerName = p.workerName ?? defaultWorkerName(hostname(), model, p.serveUrls);
    if (!this.d.workerIdsFile) return { workerName, workerId: null };
    const kept = persistentWorkerId(this.d.workerIdsFile, { workerName, model, maxInflight: p.maxInflight });
    if (kept.saveError) this.d.logs.logger('miner').warn(`the worker id could not be saved (${kept.saveError}): the next start will need a new qualification`);
    return { workerName, workerId: kept.workerId };
  }

  /** What the last run did (kept across restarts); null before the first run. */
  lastRunSummary(): MiningRunSummary | null {
    return this.lastRun;
  }

  serveSnapshot(): ServeSnapshot | null {
    const snap = this.fleet?.snapshot() ?? null;
    return snap && this.rehearsal ? { ...snap, rehearsal: this.rehearsal } : snap;
  }

  /** Each serving engine's sglang /metrics text ([] when nothing serves). */
  sglangMetrics(): ReturnType<ServeFleet['sglangMetrics']> {
    return this.fleet?.sglangMetrics() ?? [];
  }

  /** Every worker's snapshot, in engine order. */
  minerSnapshots(): MinerSnapshot[] {
    return this.workers?.snapshots() ?? [];
  }

  /** True while requests are in flight on any worker: the updater waits for this to clear. */
  busy(): boolean {
    return this.workers?.busy() ?? false;
  }

  async start(opts: MiningStartOptions = {}): Promise<void> {
    if (this.workers || this.starting) return;
    this.starting = this.doStart(opts).finally(() => {
      this.starting = null;
    });
    await this.starting;
  }

  private async doStart(opts: MiningStartOptions): Promise<void> {
    await this.d.preflight?.gate('mine');
    const s = this.d.settings.get();
    const log = this.d.logs.logger('mining');
    if (s.role !== 'mine' && s.role !== 'both') throw new AppFailure('bad-request', 'Choose the Mine (or Both) role in Setup first.');
    const spec = minerModel(s.mining.modelId);
    const checkpoint = s.mining.checkpointDir ?? defaultCheckpointDir(this.d.paths.checkpoints, spec.checkpoint);
    if (!existsSync(join(checkpoint, 'config.json'))) {
      throw new AppFailure(
        'checkpoint-incomplete',
        `No checkpoint at ${checkpoint}: download it in Setup > Serve runtime and checkpoint, or set Settings > Mining rig > Checkpoint folder to your copy.`,
      );
    }
    if (!this.d.minerKeys.status().present) throw new AppFailure('miner-key-missing', `Paste your miner key (from ${PROVIDER_HOST}, bound to your hotkey) in Setup > Miner key.`);
    const report = await this.d.hardware.get();
    // The miner (its tokenizer and jinja engine) is loaded on the first Start, never by an idle engine.
    const { MinerService } = await import('../miner/miner-service.ts');
    // The GPUs are measured whenever nvidia-smi answers, on the simulated network too: its profit figures (net of
    // electricity) need the draw, and the draw is this machine's, whatever network the serve answers.
    const gpuSampler = report.nvidiaSmi !== 'ok' ? null : new GpuSampler(this.d.gpuWatch ? { watch: this.d.gpuWatch } : {});
    // Serves a crashed app left running would hold the VRAM and the ports: end them first.
    const registry = new ProcessRegistry(join(this.d.paths.root, 'serve', 'engines.json'));
    const reaped = await registry.reapLeftovers();
    if (reaped.length > 0) log.warn(`ended ${reaped.length} serve process group(s) left running by an earlier run (pids ${reaped.join(', ')})`);
    const services = { logHub: this.d.logs, gpuSampler, registry, ...this.d.overrides?.fleet };
    let fleet: ServeFleet;
    if (s.mining.runtime === 'external') {
      if (s.mining.externalServeUrls.length === 0) throw new AppFailure('bad-request', 'Add the URL of your running sglang serve (Settings > Mining rig > Serve URLs), e.g. http://127.0.0.1:30000.');
      fleet = createExternalFleet(s.mining.externalServeUrls, s.mining.maxInflightOverride ?? report.plan?.maxInflight ?? 24, services);
    } else {
      if (!report.plan) throw new AppFailure('hardware-unsupported', 'This hardware has no serve plan: see Setup > Hardware for why. An external serve can still be used.');
      const runtimes = await detectRuntimes({ ...this.d.overrides?.runtimes, dataDir: this.d.paths.root });
      const kind = s.mining.runtime ?? runtimes.recommended;
      if (kind === 'python' && runtimes.python) {
        const specs = await planLaunches(report.plan, {
          modelPath: checkpoint,
          target: { kind: 'python', python: runtimes.python.python },
          trimDir: trimModuleDir(),
          cacheDir: join(this.d.paths.root, 'cache'),
        });
        fleet = createServeFleet(report.plan, specs, trimModuleDir(), services);
      } else if (kind === 'docker' && runtimes.docker.available) {
        const specs = await planLaunches(report.plan, {
          modelPath: checkpoint,
          target: { kind: 'docker', docker: runtimes.docker.docker, image: PINNED_DOCKER_IMAGE, shmSize: '32g' },
          trimDir: trimModuleDir(),
        });
        fleet = createServeFleet(report.plan, specs, trimModuleDir(), services);
      } else {
        throw new AppFailure('unavailable', `No way to run sglang here yet. ${runtimes.notes.join(' ')}`);
      }
    }
    const urls = fleet.engines.map((e) => e.snapshot().url);
    const plans = planWorkers({ runtime: fleet.runtime, urls, plan: report.plan, workerName: s.mining.workerName, maxInflightOverride: s.mining.maxInflightOverride });
    // Several workers on one box start about 15 s apart: the gateway judges a worker's legs ~3 s after its first hello.
    const stagger = plans.length > 1 ? new StartStagger(this.d.overrides?.staggerMs ?? 15_000) : undefined;
    const miners = plans.map((p, i) => {
      const id = this.workerIdentity(p);
      return new MinerService({
        gatewayUrl: s.mining.gatewayUrl,
        serveUrls: p.serveUrls,
        // The self-audit prefers another engine: the one that served a request holds it in its prefix cache.
        auditServeUrls: urls,
        checkpointDir: checkpoint,
        model: spec.id,
        maxInflight: p.maxInflight,
        engine: p.engine,
        workerName: id.workerName,
        ...(id.workerId ? { workerId: id.workerId } : {}),
        ...(stagger ? { stagger } : {}),
        minerKey: () => this.d.minerKeys.get(),
        redactor: this.d.logs.redactor,
        hw: async () => helloHw(report),
        versions: this.d.versions,
        proof: createProofPort(this.d.proofPool),
        log: this.d.logs.logger(plans.length > 1 ? `miner:${i}` : 'miner'),
        db: this.d.db,
        audit: this.d.simulated ? { sampleRate: 0.5, minIntervalMs: 5_000 } : { sampleRate: 0.02, minIntervalMs: 120_000 },
        // The simulated network's buyers arrive within seconds: a 10-minute probe window would hide "active".
        ...(this.d.simulated ? { probeWindowMs: 10_000, probeMinRequests: 10 } : {}),
      });
    });
    const workers = new MinerWorkers(plans, miners, log);
    this.fleet = fleet;
    this.workers = workers;
    this.startedAt = Date.now();
    this.subs = [fleet.onDidChange(() => this.changes.fire()), ...miners.map((m) => m.onDidChange(() => this.changes.fire()))];
    workers.markStartingServe(true);
    fleet.start();
    this.changes.fire();
    const declares = plans.map((p) => p.maxInflight).join(' + ');
    log.info(`starting ${fleet.engines.length} engine(s) (${fleet.runtime}), then ${plans.length} miner worker(s) (declaring ${declares})`);
    const rehearse = opts.skipRehearsal ? null : (this.d.rehearse ?? null);
    this.rehearsal = opts.skipRehearsal && this.d.rehearse ? { state: 'skipped', startedAt: Date.now(), endedAt: Date.now(), result: null, error: null } : null;
    // A managed engine's worker dials as soon as that engine serves (when nothing is rehearsed first); otherwise once every engine is up.
    if (fleet.runtime !== 'external' && !rehearse) workers.follow(fleet);
    await fleet.whenStarted();
    if (this.workers !== workers) return;
    if (!fleet.snapshot().engines.some((e) => e.status.state === 'ready' || e.status.state === 'degraded')) {
      workers.markStartingServe(false);
      log.error('no engine became ready: the miner does not connect to the gateway (see the engine cards for the cause and fix)');
      return;
    }
    if (rehearse) {
      await this.rehearseBeforeLive(rehearse, s.mining, fleet, log);
      if (this.workers !== workers) return;
    }
    await workers.startReady(fleet.snapshot(), true);
  }

  /** The probe wave against the serve that just came up; its verdict is shown, and the rig goes live either way. */
  private async rehearseBeforeLive(
    rehearse: (urls: string[]) => Promise<RehearsalResult>,
    mining: { runtime: string | null; externalServeUrls: string[] },
    fleet: ServeFleet,
    log: ReturnType<LogHub['logger']>,
  ): Promise<void> {
    const startedAt = Date.now();
    this.rehearsal = { state: 'running', startedAt, endedAt: null, result: null, error: null };
    this.changes.fire();
    const targets = rehearsalTargets(mining, fleet.snapshot());
    try {
      if ('problem' in targets) throw new Error(targets.problem);
      log.info('rehearsing the probe wave against the serve before going live (Start without rehearsal skips this)');
      const result = await rehearse(targets);
      this.rehearsal = { state: 'done', startedAt, endedAt: Date.now(), result, error: null };
    } catch (e) {
      log.warn(`the rehearsal could not run (${errorMessage(e)}); going live without it`);
      this.rehearsal = { state: 'failed', startedAt, endedAt: Date.now(), result: null, error: errorMessage(e) };
    }
    this.changes.fire();
  }

  async stop(): Promise<void> {
    const workers = this.workers;
    const fleet = this.fleet;
    this.workers = null;
    this.fleet = null;
    this.rehearsal = null;
    if (workers) this.recordRun(workers.snapshots());
    await workers?.dispose();
    await fleet?.dispose();
    for (const s of this.subs) await s.dispose();
    this.subs = [];
    this.changes.fire();
  }

  private recordRun(miners: MinerSnapshot[]): void {
    this.lastRun = summarizeRun(this.startedAt, Date.now(), miners);
    try {
      writeRunSummary(this.lastRunFile, this.lastRun);
    } catch (e) {
      this.d.logs.logger('mining').warn(`the last run's summary could not be saved: ${(e as Error).message}`);
    }
  }

  dispose(): Promise<void> {
    return this.stop();
  }
}
