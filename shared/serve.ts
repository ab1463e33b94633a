// Serve snapshots: produced by electron/engine/serve, rendered by the UI. Plain data only.
import type { RehearsalResult } from './preflight.ts';
import type { ThrottleReason } from './gpu-throttle.ts';

export type ServeRuntimeKind = 'python' | 'docker' | 'external';

/** Where a starting engine is, read from its log (sglang prints these steps in this order). */
export type ServeStartPhase = 'launching' | 'loading-weights' | 'allocating-kv-cache' | 'capturing-cuda-graphs' | 'compiling-kernels' | 'warming-up' | 'health-check';

export const SERVE_CAUSE_CODES = [
  'cuda-oom-load',
  'cuda-oom-graph',
  'not-enough-memory',
  'nvcc-missing',
  'port-in-use',
  'fp8-unsupported',
  'p2p-nccl',
  'driver-too-old',
  'model-path-missing',
  'hidden-states-disabled',
  'watchdog-timeout',
  'killed',
  'stalled',
  'never-ready',
  'unhealthy',
  'runtime-missing',
  'docker-unavailable',
  'docker-no-gpu',
  'docker-pull-failed',
  'disk-full',
  'exited',
] as const;

export type ServeCauseCode = (typeof SERVE_CAUSE_CODES)[number];

/** Why an engine is not serving, in plain words, and whether restarting it could help. */
export interface ServeCause {
  code: ServeCauseCode;
  cause: string;
  fix: string;
  retryable: boolean;
  /** The log line that gave it away, when one did. */
  evidence?: string;
}

interface StatusCommon {
  since: number;
  pid: number | null;
  port: number;
  restarts: number;
}

interface ExitFacts {
  exitCode: number | null;
  signal: string | null;
  /** Last lines the process printed before it ended. */
  stderrTail: string[];
  cause: ServeCause;
}

export type EngineStatus = StatusCommon &
  (
    | { state: 'stopped'; exitCode: number | null }
    | { state: 'starting'; phase: ServeStartPhase; progressPct: number | null }
    | { state: 'ready' }
    | { state: 'degraded'; cause: ServeCause }
    | ({ state: 'crashed' } & ExitFacts)
    | ({ state: 'restarting'; nextRetryAt: number } & ExitFacts)
    | { state: 'stopping' }
    | ({ state: 'failed' } & ExitFacts)
  );

export type EngineState = EngineStatus['state'];

/** The trim hook (mining serves only) prints whether it armed; audit serves never load it. */
export type TrimStatus =
  | { state: 'off' }
  /** External serves: the panel cannot see the serve's environment. */
  | { state: 'unknown' }
  | { state: 'pending' }
  | { state: 'armed'; detail: string }
  | { state: 'not-armed'; detail: string };

/** One scrape of sglang's /metrics, reduced to what the panel shows. */
export interface EngineMetricsPoint {
  at: number;
  runningReqs: number | null;
  queuedReqs: number | null;
  tokenUsage: number | null;
  /** Decode tokens per second, from the generation counter between two scrapes (or sglang's gauge). */
  genTokensPerS: number | null;
  cacheHitRate: number | null;
  generationTokensTotal: number | null;
  promptTokensTotal: number | null;
  ttftP50S: number | null;
  ttftP99S: number | null;
  itlP50S: number | null;
  itlP99S: number | null;
}

export interface EngineSnapshot {
  index: number;
  runtime: ServeRuntimeKind;
  url: string;
  port: number;
  gpuIndices: number[];
  /** A copyable one-line shell command that starts this engine by hand (empty for external). */
  command: string;
  status: EngineStatus;
  trim: TrimStatus;
  sglangVersion: string | null;
  metrics: EngineMetricsPoint[];
}

export interface GpuPoint {
  at: number;
  utilizationPct: number | null;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
  temperatureC: number | null;
  powerDrawW: number | null;
  /** The card's enforced power limit (nvidia-smi power.limit), drawn beside the draw. */
  powerLimitW?: number | null;
  /** Fan speed as nvidia-smi reports it (fan.speed, % of the fan's maximum); null on passive cards. */
  fanPct?: number | null;
  /** Current SM (shader) and memory clocks in MHz (clocks.sm, clocks.mem). */
  smClockMHz?: number | null;
  memClockMHz?: number | null;
  /**
   * Why the clocks are held down right now (clocks_event_reasons.active, decoded: shared/gpu-throttle.ts);
   * empty: not throttled; null or absent: the driver does not say.
   */
  throttle?: ThrottleReason[] | null;
}

export interface GpuSeries {
  index: number;
  name: string;
  points: GpuPoint[];
}

export interface ServeSnapshot {
  version: number;
  runtime: ServeRuntimeKind;
  engines: EngineSnapshot[];
  gpus: GpuSeries[];
  /** Why GPU sampling is not working (nvidia-smi missing or failing), else null. */
  gpuError?: string | null;
  /** MAX_INFLIGHT the miner may declare, from the plan. */
  maxInflight: number;
  /** The probe-wave rehearsal run against this serve before the miner went live (absent: not part of this start). */
  rehearsal?: LiveRehearsal;
}

/** Start's rehearsal: the serve starts, the probe wave's shape is measured against it, then the rig goes live. */
export interface LiveRehearsal {
  state: 'running' | 'done' | 'failed' | 'skipped';
  startedAt: number;
  endedAt: number | null;
  result: RehearsalResult | null;
  /** Why it could not run (the rig went live anyway). */
  error: string | null;
}

// ---- checkpoint ----

export type CheckpointState = 'absent' | 'listing' | 'downloading' | 'verifying' | 'complete' | 'incomplete' | 'failed';

export interface CheckpointProgress {
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
  /** Bytes per second over the last few seconds. */
  rateBps: number;
  etaS: number | null;
  currentFile: string | null;
}

export interface CheckpointSnapshot {
  repo: string;
  dir: string;
  state: CheckpointState;
  progress: CheckpointProgress | null;
  /** PROTOCOL section 3 identity (the hello's model_root) of the folder, once complete. */
  identity: string | null;
  /** The published Merkle root from the catalog: a different, stronger commitment, shown beside it. */
  publishedRoot: string | null;
  missing: string[];
  error: string | null;
  /** Bytes of the checkpoint's files: exact once a hub listing is known, else the catalog's estimate (null: neither). */
  downloadBytes: number | null;
}

// ---- runtimes ----

export interface PythonRuntimeProbe {
  python: string;
  pythonVersion: string | null;
  /** null when sglang is not importable with this interpreter. */
  sglangVersion: string | null;
  /** True when the trim hook knows this sglang version. */
  supported: boolean;
  problem: string | null;
}

export interface DockerRuntimeProbe {
  docker: string;
  available: boolean;
  serverVersion: string | null;
  /** Whether Docker lists the NVIDIA runtime; null when it could not tell (CDI set-ups do not list it). */
  nvidiaRuntime: boolean | null;
  image: string;
  imagePresent: boolean;
  problem: string | null;
}

export interface RuntimeReport {
  python: PythonRuntimeProbe | null;
  pythonTried: PythonRuntimeProbe[];
  docker: DockerRuntimeProbe;
  recommended: Exclude<ServeRuntimeKind, 'external'> | null;
  /** Plain words: why this one, and what is missing for the others. */
  notes: string[];
}

// ---- the whole serve side, as the UI sees it ----

export type ServeSetupPhase = 'idle' | 'preparing' | 'running' | 'blocked';

export interface ServeSettings {
  runtime: 'auto' | ServeRuntimeKind;
  /** Interpreter with sglang (python runtime); detected when absent. */
  python?: string | null;
  docker?: string | null;
  /** Serves the user runs (external runtime). */
  externalUrls?: string[];
  /** A checkpoint folder the user already has; the data dir's copy otherwise. */
  checkpointDir?: string | null;
}

export interface ServeServiceSnapshot {
  version: number;
  phase: ServeSetupPhase;
  /** Why the serve cannot start, and what to do; set in phase "blocked". */
  blocker: { message: string; fix: string } | null;
  fleet: ServeSnapshot | null;
  runtimes: RuntimeReport | null;
  checkpoint: CheckpointSnapshot;
}
