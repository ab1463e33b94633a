import type { GpuInfo, ServeEnginePlan, ServePlan } from '../../../shared/hardware.ts';
import type { MinerModelSpec } from '../../../shared/models.ts';
import { engineMemory, type EngineMemory } from './engine-memory.ts';

/** The gateway onboards a worker only with all 8 legs live. */
export const GATEWAY_MIN_DECLARED = 8;
/** Operators saw 2 per leg onboard 6 of 8 legs and 3 per leg onboard 8 of 8. */
export const TARGET_DECLARED = 24;
/** The serve keeps two slots beyond the declared total for the app's own health probes and an undrained leg. */
export const OWN_PROBE_SLOTS = 2;
/** Probe prompts are about 13k tokens, all declared slots at once. */
export const PROBE_PROMPT_TOKENS = 13_000;
/** Below this a serve cannot take the model's shorter requests usefully. */
const MIN_USEFUL_CONTEXT = 32_768;

export function fp8Capable(g: GpuInfo, spec: MinerModelSpec): boolean {
  if (g.vendor !== 'nvidia' || g.computeCap === null) return false;
  return Number(g.computeCap) >= Number(spec.memory.minComputeCap);
}

/**
 * The cards the serve may use: all eligible ones, or those the user chose in Settings (mining.gpus).
 * The plan, and so each engine's CUDA_VISIBLE_DEVICES, is built from this subset only.
 */
export function selectGpus(eligible: GpuInfo[], allowed: readonly number[] | null | undefined): { chosen: GpuInfo[]; leftOut: GpuInfo[] } {
  if (!allowed) return { chosen: eligible, leftOut: [] };
  const set = new Set(allowed);
  return { chosen: eligible.filter((g) => set.has(g.index)), leftOut: eligible.filter((g) => !set.has(g.index)) };
}

/** GeForce cards have no peer-to-peer over PCIe: NCCL's P2P path hangs or fails on them. */
export function lacksP2P(gpus: GpuInfo[]): boolean {
  return gpus.some((g) => /geforce|rtx [345]0[0-9]0/i.test(g.name));
}

function fits(m: EngineMemory): boolean {
  return m.restGiB > 0 && m.tokensThatFit >= MIN_USEFUL_CONTEXT && m.requestSlots >= GATEWAY_MIN_DECLARED + OWN_PROBE_SLOTS;
}

function enginePlan(index: number, gpus: GpuInfo[], m: EngineMemory, cpuOffloadGb = 0): ServeEnginePlan {
  const declared = Math.min(TARGET_DECLARED, m.requestSlots - OWN_PROBE_SLOTS);
  const env: Record<string, string> = { CUDA_VISIBLE_DEVICES: gpus.map((g) => g.index).join(',') };
  const extraArgs: string[] = [];
  if (gpus.length > 1 && lacksP2P(gpus)) {
    env.NCCL_P2P_DISABLE = '1';
    extraArgs.push('--disable-custom-all-reduce');
  }
  return {
    index,
    gpuIndices: gpus.map((g) => g.index),
    tp: gpus.length,
    memFractionStatic: m.memFraction,
    kvCacheDtype: 'fp8_e4m3',
    contextLength: m.contextLength,
    contextLimited: m.contextLength < 262_144,
    maxRunningRequests: declared + OWN_PROBE_SLOTS,
    declaredInflight: declared,
    chunkedPrefillSize: 8192,
    cpuOffloadGb,
    env,
    extraArgs,
    arithmetic: {
      weightsGiB: m.weightsGiB,
      kvBytesPerToken: m.kvBytesPerToken,
      perRequestStateMiB: m.perRequestStateMiB,
      usableVramGiB: m.usableVramGiB,
      tokensThatFit: m.tokensThatFit,
      contextLength: m.contextLength,
    },
  };
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i + size <= items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Chooses the engine shape for the FP8-capable cards:
 * - the model fits on one card: one engine per card (measured 1.72x the throughput of tp2 on 2xH100);
 * - otherwise the smallest tensor-parallel group that fits, except that a group whose KV pool cannot hold
 *   a full probe wave (24 x 13k tokens) takes the next size up when the box has the cards (4x4090: tp4,
 *   the reference production config, not two tp2 engines that would each queue the probe wave);
 * - nothing fits: one card with part of the weights offloaded to host RAM, said plainly to be slow.
 */
export function planServe(spec: MinerModelSpec, eligible: GpuInfo[], ramGiB: number): { plan: ServePlan | null; offloaded: boolean } {
  const rationale: string[] = [];
  if (eligible.length === 0) return { plan: null, offloaded: false };
  const single = engineMemory(spec, [eligible[0]!]);
  if (fits(single)) {
    const engines = eligible.map((g, i) => enginePlan(i, [g], engineMemory(spec, [g])));
    rationale.push(
      eligible.length > 1
        ? `The model fits on one card, so each of the ${eligible.length} cards runs its own engine (tp 1): one engine per card measured 1.72x the throughput of tensor parallel, and a bad probe costs one card, not all.`
        : 'The model fits on this card: one engine, tp 1.',
    );
    return { plan: finish(spec, engines, rationale), offloaded: false };
  }
  for (const tp of [2, 4, 8]) {
    if (tp > eligible.length) break;
    const m = engineMemory(spec, eligible.slice(0, tp));
    if (!fits(m)) continue;
    const probeWave = TARGET_DECLARED * PROBE_PROMPT_TOKENS;
    const bigger = tp * 2 <= eligible.length ? engineMemory(spec, eligible.slice(0, tp * 2)) : null;
    let useTp = tp;
    if (m.tokensThatFit < probeWave && bigger && fits(bigger)) {
      useTp = tp * 2;
      rationale.push(
        `A tp${tp} engine would hold about ${Math.round(m.tokensThatFit / 1000)}k cached tokens, less than a full probe wave (${TARGET_DECLARED} x ~13k tokens); one tp${useTp} engine holds about ${Math.round(bigger.tokensThatFit / 1000)}k, so the cards serve as one tp${useTp} engine (the reference 4x RTX 4090 configuration).`,
      );
    } else {
      rationale.push(`The model's ~${spec.memory.weightsGiB} GiB of weights do not fit on one card: the smallest tensor-parallel group that fits is tp${tp}.`);
    }
    const groups = chunk(eligible, useTp);
    const engines = groups.map((g, i) => enginePlan(i, g, engineMemory(spec, g)));
    const idle = eligible.length - groups.length * useTp;
    if (idle > 0) rationale.push(`${idle} card(s) left over: too few for another tp${useTp} engine.`);
    if (lacksP2P(groups[0]!)) rationale.push('GeForce cards have no P2P: NCCL_P2P_DISABLE=1 and --disable-custom-all-reduce avoid the known hang.');
    return { plan: finish(spec, engines, rationale), offloaded: false };
  }
  // Nothing fits in VRAM: offload part of the weights to host RAM, with a short context.
  const card = eligible[0]!;
  const vram = card.memoryTotalMiB / 1024;
  const offload = Math.ceil(spec.memory.weightsGiB - (vram - 1.1) * 0.83 + 4);
  if (offload > ramGiB - 16) return { plan: null, offloaded: false };
  const m = engineMemory(spec, [card], offload);
  const e = enginePlan(0, [card], { ...m, contextLength: Math.min(m.contextLength, 65_536) }, offload);
  rationale.push(
    `One ${Math.round(vram)} GB card cannot hold the ~${spec.memory.weightsGiB} GiB of weights: ${offload} GB are offloaded to host RAM (--cpu-offload-gb) with a short context. This runs, slowly, and is unlikely to meet the latency gates.`,
  );
  return { plan: finish(spec, [e], rationale), offloaded: true };
}

function finish(spec: MinerModelSpec, engines: ServeEnginePlan[], rationale: string[]): ServePlan {
  return { modelId: spec.id, engines, maxInflight: engines.reduce((s, e) => s + e.declaredInflight, 0), rationale };
}
