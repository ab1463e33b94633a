// Hardware report and serve plan: produced by electron/engine/hardware, consumed by serve, miner and the UI.
import type { CheckpointFolderVerdict } from './sglang-setup.ts';

export interface GpuInfo {
  index: number;
  name: string;
  uuid: string;
  memoryTotalMiB: number;
  memoryUsedMiB: number;
  /** e.g. "8.9"; null when unknown (non-NVIDIA or nvidia-smi too old to say). */
  computeCap: string | null;
  driverVersion: string | null;
  temperatureC: number | null;
  powerDrawW: number | null;
  powerLimitW: number | null;
  utilizationPct: number | null;
  pcieGen: number | null;
  pcieWidth: number | null;
  vendor: 'nvidia' | 'other';
}

export interface HostInfo {
  hostname: string;
  os: string;
  cpuModel: string;
  cpus: number;
  ramGiB: number;
  diskFreeGiB: number | null;
  diskPath: string;
}

export type FitVerdict = 'ready' | 'ready-with-limits' | 'unsupported';

export interface FitReason {
  /** ok: fine; warn: worth knowing, does not change the verdict; limit: serves with limits; blocker: cannot mine. */
  severity: 'ok' | 'warn' | 'limit' | 'blocker';
  /** Plain words for the user, with what to do when it is not ok. */
  text: string;
}

/** The memory arithmetic, shown to the user so the verdict is not a black box. */
export interface FitArithmetic {
  weightsGiB: number;
  kvBytesPerToken: number;
  perRequestStateMiB: number;
  usableVramGiB: number;
  tokensThatFit: number;
  contextLength: number;
}

export interface ServeEnginePlan {
  index: number;
  gpuIndices: number[];
  tp: number;
  memFractionStatic: number;
  kvCacheDtype: 'fp8_e4m3' | 'auto';
  contextLength: number;
  /** True when the context is shorter than the model's 262144 because memory does not allow it. */
  contextLimited: boolean;
  maxRunningRequests: number;
  /** What this engine's gateway worker declares as MAX_INFLIGHT: maxRunningRequests less 2 slots for the app's own probes. */
  declaredInflight: number;
  chunkedPrefillSize: number;
  cpuOffloadGb: number;
  env: Record<string, string>;
  extraArgs: string[];
  arithmetic: FitArithmetic;
}

export interface ServePlan {
  modelId: string;
  engines: ServeEnginePlan[];
  /** Sum of the engines' declaredInflight: each engine is its own gateway worker. */
  maxInflight: number;
  /** Why this shape was chosen, in plain words. */
  rationale: string[];
}

export interface HardwareReport {
  at: number;
  gpus: GpuInfo[];
  host: HostInfo;
  cudaVersion: string | null;
  nvidiaSmi: 'ok' | 'missing' | 'failed';
  nvidiaSmiError?: string;
  verdict: FitVerdict;
  reasons: FitReason[];
  plan: ServePlan | null;
  /** Set when there is no usable NVIDIA GPU: the validator role needs none. */
  suggestValidator: boolean;
  /** Room in the checkpoint folder for what is still to download (absent: not measured). */
  space?: CheckpointFolderVerdict | null;
}

/** "Show what works": a configuration that would mine, planned with the same arithmetic as this rig. */
export interface HardwareAlternative {
  id: 'two-4090' | 'one-48gb' | 'offload';
  title: string;
  /** What it takes and what it gives, in plain words. */
  summary: string;
  plan: ServePlan;
  /** Offload only: RAM the host needs, and the expected decode speed with its reason. */
  ramNeedGiB: number | null;
  speed: string | null;
  /** True when this machine could run it now (the offload plan on the user's own card). */
  onThisMachine: boolean;
  /** What it would earn on the current network: an estimate with its basis (null τ: not enough data, said why). */
  expected: ExpectedEarnings;
}

export interface ExpectedEarnings {
  taoPerDay: number | null;
  basis: string;
}
