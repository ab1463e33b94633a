import type { GpuInfo, FitArithmetic } from '../../../shared/hardware.ts';
import type { MinerModelSpec } from '../../../shared/models.ts';

const GIB = 1024 ** 3;
/** Per card, before sglang measures free memory: CUDA context, NCCL buffers, the driver's share. */
export const CUDA_CONTEXT_GIB = 1.1;
/** sglang splits the pool left after weights between the mamba/GDN state pool and the KV pool (about 0.9:1). */
export const STATE_POOL_SHARE = 0.47;

export function gpuVramGiB(g: GpuInfo): number {
  return g.memoryTotalMiB / 1024;
}

/** 0.83 on 24-48 GB cards (a larger fraction killed serves there); datacenter cards take 0.85. */
export function memFractionFor(minVramGiB: number): number {
  return minVramGiB >= 64 ? 0.85 : 0.83;
}

export interface EngineMemory extends FitArithmetic {
  tp: number;
  memFraction: number;
  /** Pool left per card after weights and sglang's reserve; <= 0 means the weights do not fit. */
  restGiB: number;
  /** Concurrent requests the state pool holds (each running request keeps a fixed GDN state). */
  requestSlots: number;
}

/**
 * sglang's pool sizing, per card: rest = avail_before * f - weights / tp; the rest is split between
 * the per-request state pool and the per-token KV pool. Estimates, shown to the user as such.
 */
export function engineMemory(spec: MinerModelSpec, gpus: GpuInfo[], cpuOffloadGiB = 0): EngineMemory {
  const tp = gpus.length;
  const minVram = Math.min(...gpus.map(gpuVramGiB));
  const f = memFractionFor(minVram);
  const availBefore = minVram - CUDA_CONTEXT_GIB;
  const weightsPerCard = (spec.memory.weightsGiB - cpuOffloadGiB) / tp;
  const restGiB = availBefore * f - weightsPerCard;
  const kvBytesPerToken = tp === 1 ? spec.memory.kvBytesPerTokenTp1 : spec.memory.kvBytesPerTokenPerCardTpN;
  const stateMiB = spec.memory.stateMiBPerRequestTp1 / tp;
  const tokensThatFit = restGiB > 0 ? Math.floor((restGiB * (1 - STATE_POOL_SHARE) * GIB) / kvBytesPerToken) : 0;
  const requestSlots = restGiB > 0 ? Math.floor((restGiB * STATE_POOL_SHARE * 1024) / stateMiB) : 0;
  return {
    tp,
    memFraction: f,
    restGiB,
    requestSlots,
    weightsGiB: spec.memory.weightsGiB,
    kvBytesPerToken,
    perRequestStateMiB: stateMiB,
    usableVramGiB: availBefore * f * tp,
    tokensThatFit,
    contextLength: Math.min(spec.serveContextLength, Math.floor(tokensThatFit / 1024) * 1024),
  };
}
