import type { ChildProcess } from 'node:child_process';
import type { EngineMetricsPoint, EngineSnapshot, EngineStatus, ServeCause, ServeRuntimeKind, TrimStatus } from '../../../shared/serve.ts';
import { Backoff } from '../lib/backoff.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import type { Disposable } from '../lib/disposable.ts';
import { Emitter } from '../lib/emitter.ts';
import { silentLogger, type Logger } from '../lib/logger.ts';
import { CrashEvidence, causeOf } from './crash-causes.ts';
import { DEFAULT_TIMINGS, type EngineTimings } from './engine-timings.ts';
import { getJsonFirst, getText } from './http.ts';
import { defaultFetch, type FetchFn } from '../lib/fetch.ts';
import { childEnv, type LaunchSpec } from './launch-plan.ts';
import { isReadyLine, phaseOfLine } from './log-phase.ts';
import { PollLoop } from './poll-loop.ts';
import { isPortFree } from './port-check.ts';
import { defaultSpawn, signalGroup, spawnGrouped, terminateGroup, type SpawnFn } from './process-group.ts';
import { metricsPoint } from './sglang-metrics.ts';
import type { ProcessRegistry } from './process-registry.ts';
import { pushCapped } from './series.ts';
import { StallDetector } from './stall-detector.ts';
import { trimStatusOfLine } from './trim-status.ts';

export interface EngineSupervisorOptions {
  index: number;
  /** What to run; null for an external serve that the panel only watches. */
  spec: LaunchSpec | null;
  /** Base URL of the serve (required for external; derived from the spec otherwise). */
  url?: string;
  /** The trim hook's directory, kept off PYTHONPATH of serves that must not load it. */
  trimDir?: string | null;
  spawn?: SpawnFn;
  fetch?: FetchFn;
  clock?: Clock;
  logger?: Logger;
  env?: NodeJS.ProcessEnv;
  timings?: Partial<EngineTimings>;
  /** Run when a docker serve must go: removes the container a killed CLI would leave behind. */
  removeContainer?: (name: string) => Promise<void>;
  /** Records spawned groups on disk so a later app start can end what a crashed app left running. */
  registry?: ProcessRegistry;
}

type Internal = { kind: 'idle' } | { kind: 'running'; child: ChildProcess; pid: number; exited: Promise<void> };

const TAIL_LINES = 40;

/** Runs one sglang engine: spawn, readiness, health, stall watch, crash classification, restarts. */
export class EngineSupervisor implements Disposable {
  readonly index: number;
  readonly runtime: ServeRuntimeKind;
  readonly url: string;
  private readonly spec: LaunchSpec | null;
  private readonly t: EngineTimings;
  private readonly spawnFn: SpawnFn;
  private readonly fetchFn: FetchFn;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly env: NodeJS.ProcessEnv;
  private readonly trimDir: string | null;
  private readonly removeContainer: ((name: string) => Promise<void>) | undefined;
  private readonly registry: ProcessRegistry | undefined;
  private readonly backoff: Backoff;
  private readonly evidence = new CrashEvidence();
  private readonly stall: StallDetector;
  private readonly changes = new Emitter<EngineSnapshot>();
  readonly onDidChange = this.changes.event;

  private status: EngineStatus;
  private proc: Internal = { kind: 'idle' };
  private generation = 0;
  private stopRequested = false;
  private readyLineSeen = false;
  private healthFails = 0;
  private pendingCause: ServeCause | null = null;
  private tail: string[] = [];
  private trim: TrimStatus;
  private sglangVersion: string | null = null;
  private metrics: EngineMetricsPoint[] = [];
  /** The last /metrics body as sglang wrote it (relabelled into the panel's own /metrics); null while down. */
  private metricsBody: string | null = null;
  private readonly health: PollLoop;
  private readonly scrape: PollLoop;
  private retryTimer: unknown = null;
  private readyDeadline: unknown = null;
  private stableTimer: unknown = null;
  private disposed = false;

  constructor(opts: EngineSupervisorOptions) {
    this.index = opts.index;
    this.spec = opts.spec;
    this.runtime = opts.spec ? opts.spec.runtime : 'external';
    const url = opts.url ?? opts.spec?.url;
    if (!url) throw new Error('an external serve needs its url');
    this.url = url.replace(/\/+$/, '');
    this.t = { ...DEFAULT_TIMINGS, ...opts.timings };
    this.spawnFn = opts.spawn ?? defaultSpawn;
    this.fetchFn = opts.fetch ?? defaultFetch;
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? silentLogger;
    this.env = opts.env ?? process.env;
    this.trimDir = opts.trimDir ?? null;
    this.removeContainer = opts.removeContainer;
    this.registry = opts.registry;
    this.backoff = new Backoff(this.t.backoff);
    this.stall = new StallDetector(this.t.stallMs);
    this.trim = this.initialTrim();
    this.status = { state: 'stopped', exitCode: null, since: this.clock.now(), pid: null, port: this.port, restarts: 0 };
    this.health = new PollLoop(this.clock, this.t.startupProbeMs, () => this.probeHealth());
    this.scrape = new PollLoop(this.clock, this.t.metricsIntervalMs, () => this.scrapeMetrics());
  }

  get port(): number {
    if (this.spec) return this.spec.port;
    const p = Number(new URL(this.url).port);
    return Number.isFinite(p) && p > 0 ? p : 80;
  }

  snapshot(): EngineSnapshot {
    return {
      index: this.index,
      runtime: this.runtime,
      url: this.url,
      port: this.port,
      gpuIndices: this.spec ? [...this.spec.gpuIndices] : [],
      command: this.spec?.shellLine ?? '',
      status: structuredClone(this.status),
      trim: { ...this.trim },
      sglangVersion: this.sglangVersion,
      metrics: [...this.metrics],
    };
  }

  /** Starts the engine (a no-op while it is already starting or running). */
  async start(): Promise<void> {
    if (this.disposed) return;
    switch (this.status.state) {
      case 'starting':
      case 'ready':
      case 'degraded':
      case 'stopping':
      case 'restarting':
        return;
      case 'stopped':
      case 'crashed':
      case 'failed':
        break;
    }
    this.stopRequested = false;
    this.backoff.reset();
    this.setStatus({ ...this.common(null), restarts: 0, state: 'starting', phase: 'launching', progressPct: null });
    await this.launch();
  }

  /** sglang's own /metrics text from the last scrape, or null when the engine is not serving. */
  sglangMetricsText(): string | null {
    const serving = this.status.state === 'ready' || this.status.state === 'degraded';
    return serving ? this.metricsBody : null;
  }

  /** SIGTERM to the engine's process group, SIGKILL after the grace period; resolves when nothing is left. */
  async stop(): Promise<void> {
    this.stopRequested = true;
    this.clearTimers();
    this.health.stop();
    this.scrape.stop();
    this.metricsBody = null;
    const p = this.proc;
    if (p.kind === 'idle') {
      if (this.status.state !== 'stopped') this.setStatus({ ...this.common(null), state: 'stopped', exitCode: null });
      return;
    }
    this.setStatus({ ...this.common(p.pid), state: 'stopping' });
    const how = await terminateGroup(p.pid, this.t.stopGraceMs);
    if (how === 'killed') this.log.warn(`engine ${this.index} ignored SIGTERM for ${this.t.stopGraceMs} ms: killed`);
    await this.removeContainerIfAny();
    await p.exited;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    await this.stop();
    this.disposed = true;
    this.changes.clear();
  }

  /** For a process exit hook: kill the group at once, synchronously. */
  killNow(): void {
    if (this.proc.kind === 'running') signalGroup(this.proc.pid, 'SIGKILL');
  }

  // ---- launch and process events ----

  private async launch(): Promise<void> {
    const gen = ++this.generation;
    this.readyLineSeen = false;
    this.healthFails = 0;
    this.pendingCause = null;
    this.evidence.reset();
    this.stall.reset();
    this.tail = [];
    this.trim = this.initialTrim();
    if (!this.spec) {
      this.setStatus({ ...this.common(null), state: 'starting', phase: 'health-check', progressPct: null });
      this.readyLineSeen = true;
      this.health.intervalMs = this.t.startupProbeMs;
      this.health.start(0);
      // Someone else's serve is either up or not: say so within a minute, and keep probing.
      this.armReadyDeadline(gen, Math.min(this.t.readyTimeoutMs, 60_000));
      return;
    }
    const spec = this.spec;
    // A container of the same name (a previous run's, or one a killed CLI left) holds the port and the name.
    await this.removeContainerIfAny();
    if (gen !== this.generation || this.stopRequested) return;
    if (!(await isPortFree(spec.port, spec.host))) {
      if (gen !== this.generation || this.stopRequested) return;
      this.fail(causeOf('port-in-use', `${spec.host}:${spec.port} is already taken, checked before launch`), null, null);
      return;
    }
    if (gen !== this.generation || this.stopRequested) return;
    this.log.info(`launching: ${spec.shellLine}`);
    const started = await spawnGrouped(this.spawnFn, spec.command, spec.args, childEnv(spec, this.env, this.trimDir), (l) => this.onLine(gen, l));
    if (!started.ok) {
      this.fail(causeOf('runtime-missing', `${spec.command}: ${started.error}`), null, null);
      return;
    }
    const { child, pid } = started;
    this.registry?.add(pid, `--port ${spec.port}`);
    // Judge the exit only once its output is fully read ('close'): the traceback that names the
    // cause is often still in the pipe when 'exit' fires. Killing the group first makes sure no
    // surviving child keeps the pipes open; the timer covers one that somehow still does.
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        signalGroup(pid, 'SIGKILL');
        let done = false;
        const finish = (): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          this.onExit(gen, pid, code, signal);
          resolve();
        };
        const timer = setTimeout(finish, 2_000);
        child.once('close', finish);
      });
    });
    child.on('error', (e) => this.log.error(`engine ${this.index} process error: ${e.message}`));
    this.proc = { kind: 'running', child, pid, exited };
    this.setStatus({ ...this.common(pid), state: 'starting', phase: 'launching', progressPct: null });
    this.armReadyDeadline(gen, this.t.readyTimeoutMs);
  }

  private armReadyDeadline(gen: number, ms: number): void {
    this.readyDeadline = this.clock.setTimeout(() => {
      this.readyDeadline = null;
      if (gen !== this.generation || this.status.state !== 'starting') return;
      const multiGpu = (this.spec?.gpuIndices.length ?? 0) > 1;
      this.killForRestart(
        multiGpu && this.evidence.stuckInDistributedInit()
          ? causeOf('p2p-nccl', "stuck after 'Init torch distributed begin.': the GPUs never finished connecting")
          : causeOf('never-ready', `${this.url} gave no healthy /health_generate within ${Math.round(ms / 1000)} s`),
      );
    }, ms);
  }

  private onLine(gen: number, line: string): void {
    if (gen !== this.generation) return;
    this.log.info(line);
    pushCapped(this.tail, line, TAIL_LINES);
    const phase = this.status.state === 'starting' ? this.status.phase : null;
    this.evidence.observe(line, phase);
    const trim = trimStatusOfLine(line);
    if (trim && this.spec?.trim) {
      this.trim = trim;
      this.emit();
    }
    if (this.status.state !== 'starting') return;
    if (isReadyLine(line)) {
      this.readyLineSeen = true;
      this.setStatus({ ...this.status, state: 'starting', phase: 'health-check', progressPct: null });
      this.health.intervalMs = this.t.startupProbeMs;
      this.health.start(0);
      return;
    }
    if (this.readyLineSeen) return;
    const hit = phaseOfLine(line);
    if (hit && (hit.phase !== this.status.phase || hit.progressPct !== this.status.progressPct)) {
      const pct = hit.phase === this.status.phase ? (hit.progressPct ?? this.status.progressPct) : hit.progressPct;
      this.setStatus({ ...this.status, phase: hit.phase, progressPct: pct });
    }
  }

  private onExit(gen: number, pid: number, code: number | null, signal: NodeJS.Signals | null): void {
    // Whatever the leader's fate, nothing of its group may outlive it.
    signalGroup(pid, 'SIGKILL');
    this.registry?.remove(pid);
    if (this.proc.kind === 'running' && this.proc.pid === pid) this.proc = { kind: 'idle' };
    if (gen !== this.generation) return;
    // Probes still in flight for the dead process must not act on what they bring back.
    this.generation++;
    this.health.stop();
    this.scrape.stop();
    this.metricsBody = null;
    this.clearTimers();
    this.log.info(`engine ${this.index} exited (code ${code ?? '-'}, signal ${signal ?? '-'})`);
    if (this.stopRequested) {
      this.setStatus({ ...this.common(null), state: 'stopped', exitCode: code });
      return;
    }
    const cause = this.pendingCause ?? this.evidence.classify({ code, signal });
    this.pendingCause = null;
    void this.removeContainerIfAny();
    if (!cause.retryable) {
      this.fail(cause, code, signal);
      return;
    }
    const facts = { exitCode: code, signal, stderrTail: [...this.tail], cause };
    this.setStatus({ ...this.common(null), state: 'crashed', ...facts });
    const delay = this.backoff.next();
    const restarts = this.status.restarts + 1;
    this.setStatus({ since: this.clock.now(), pid: null, port: this.port, restarts, state: 'restarting', nextRetryAt: this.clock.now() + delay, ...facts });
    this.log.warn(`engine ${this.index}: ${cause.cause} Restarting in ${Math.round(delay / 1000)} s.`);
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = null;
      if (this.stopRequested || this.status.state !== 'restarting') return;
      this.setStatus({ ...this.common(null), state: 'starting', phase: 'launching', progressPct: null });
      void this.launch();
    }, delay);
  }

  private fail(cause: ServeCause, exitCode: number | null, signal: string | null): void {
    this.log.error(`engine ${this.index} failed: ${cause.cause} ${cause.fix}`);
    this.setStatus({ ...this.common(null), state: 'failed', exitCode, signal, stderrTail: [...this.tail], cause });
  }

  /** Wedged or never ready: SIGKILL (a process stuck in a CUDA kernel ignores SIGTERM); the exit handler restarts it. */
  private killForRestart(cause: ServeCause): void {
    this.log.warn(`engine ${this.index}: ${cause.cause} Killing it to restart.`);
    if (!this.spec) {
      this.setStatus({ ...this.common(null), state: 'degraded', cause });
      return;
    }
    this.pendingCause = cause;
    if (this.proc.kind === 'running') signalGroup(this.proc.pid, 'SIGKILL');
  }

  // ---- health and metrics ----

  private async probeHealth(): Promise<void> {
    const gen = this.generation;
    const r = await getText(this.fetchFn, `${this.url}/health_generate`, this.t.healthTimeoutMs);
    if (gen !== this.generation || this.stopRequested) return;
    const st = this.status;
    if (r.status === 200) {
      this.healthFails = 0;
      const cameUp = (st.state === 'starting' && this.readyLineSeen) || (st.state === 'degraded' && st.cause.code === 'never-ready');
      if (cameUp) await this.becomeReady(gen);
      else if (st.state === 'degraded' && st.cause.code === 'unhealthy') this.setStatus({ ...this.common(this.pidOrNull()), state: 'ready' });
      return;
    }
    if (st.state !== 'ready' && st.state !== 'degraded') return;
    this.healthFails++;
    if (st.state === 'ready' && this.healthFails >= this.t.unhealthyAfter) {
      this.setStatus({ ...this.common(this.pidOrNull()), state: 'degraded', cause: causeOf('unhealthy', `/health_generate answered ${r.status || 'nothing'}`) });
    }
  }

  private async becomeReady(gen: number): Promise<void> {
    if (this.readyDeadline !== null) this.clock.clearTimeout(this.readyDeadline);
    this.readyDeadline = null;
    const info = await getJsonFirst(this.fetchFn, this.url, ['/server_info', '/get_server_info'], this.t.healthTimeoutMs);
    if (gen !== this.generation || this.stopRequested) return;
    if (info && typeof info.version === 'string') this.sglangVersion = info.version;
    this.health.intervalMs = this.t.healthIntervalMs;
    this.scrape.start(0);
    if (info && info.enable_return_hidden_states === false) {
      this.setStatus({ ...this.common(this.pidOrNull()), state: 'degraded', cause: causeOf('hidden-states-disabled') });
    } else {
      this.setStatus({ ...this.common(this.pidOrNull()), state: 'ready' });
    }
    this.log.info(`engine ${this.index} ready at ${this.url}`);
    this.stableTimer = this.clock.setTimeout(() => {
      this.stableTimer = null;
      if (gen === this.generation) this.backoff.reset();
    }, this.t.stableUptimeMs);
  }

  private async scrapeMetrics(): Promise<void> {
    const gen = this.generation;
    const r = await getText(this.fetchFn, `${this.url}/metrics`, this.t.healthTimeoutMs);
    if (gen !== this.generation || r.status !== 200) return;
    this.metricsBody = r.body;
    const point = metricsPoint(r.body, this.clock.now(), this.metrics.at(-1) ?? null);
    pushCapped(this.metrics, point, this.t.seriesCap);
    if (this.stall.observe(point) && (this.status.state === 'ready' || this.status.state === 'degraded')) {
      this.killForRestart(causeOf('stalled', `${point.runningReqs} running requests, no new tokens for ${Math.round(this.t.stallMs / 1000)} s`));
      return;
    }
    const st = this.status;
    if (st.state === 'degraded' && st.cause.code === 'stalled') this.setStatus({ ...this.common(this.pidOrNull()), state: 'ready' });
    else this.emit();
  }

  // ---- helpers ----

  private initialTrim(): TrimStatus {
    if (!this.spec) return { state: 'unknown' };
    return this.spec.trim ? { state: 'pending' } : { state: 'off' };
  }

  private pidOrNull(): number | null {
    return this.proc.kind === 'running' ? this.proc.pid : null;
  }

  private common(pid: number | null): { since: number; pid: number | null; port: number; restarts: number } {
    return { since: this.clock.now(), pid: pid ?? this.pidOrNull(), port: this.port, restarts: this.status?.restarts ?? 0 };
  }

  private async removeContainerIfAny(): Promise<void> {
    const name = this.spec?.containerName;
    if (!name || !this.removeContainer) return;
    try {
      await this.removeContainer(name);
    } catch (e) {
      this.log.warn(`could not remove container ${name}: ${String(e)}`);
    }
  }

  private clearTimers(): void {
    for (const t of [this.retryTimer, this.readyDeadline, this.stableTimer]) if (t !== null) this.clock.clearTimeout(t);
    this.retryTimer = null;
    this.readyDeadline = null;
    this.stableTimer = null;
  }

  private setStatus(s: EngineStatus): void {
    this.status = s;
    this.emit();
  }

  private emit(): void {
    if (!this.disposed) this.changes.fire(this.snapshot());
  }
}
