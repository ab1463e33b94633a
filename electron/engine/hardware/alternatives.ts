// "Show what works" for a rig that cannot mine: the same planner run on two reference rigs (2x RTX
// 4090, one 48 GB card) and, when host RAM allows, the offload plan on the user's own card.
import type { GpuInfo, HardwareAlternative, HardwareReport } from '../../../shared/hardware.ts';
import type { MinerModelSpec } from '../../../shared/models.ts';
import { fp8Capable, planServe } from './serve-plan.ts';
import type { MinerPoolFacts } from '../chain/ports.ts';
import { expectedEarnings } from './expected-earnings.ts';

function card(index: number, name: string, memoryMiB: number, computeCap: string): GpuInfo {
  return {
    index,
    name,
    uuid: `reference-${index}`,
    memoryTotalMiB: memoryMiB,
    memoryUsedMiB: 0,
    computeCap,
    driverVersion: null,
    temperatureC: null,
    powerDrawW: null,
    powerLimitW: null,
    utilizationPct: null,
    pcieGen: 4,
    pcieWidth: 16,
    vendor: 'nvidia',
  };
}

/** PCIe payload bandwidth per lane in GB/s by generation (after encoding overhead). */
const LANE_GBPS: Record<number, number> = { 3: 0.985, 4: 1.97, 5: 3.94 };

/** With weights in host RAM, every decode step streams them over PCIe: that, not the GPU, sets the pace. */
export function offloadSpeed(offloadGb: number, gpu: GpuInfo): string {
  const bw = (LANE_GBPS[gpu.pcieGen ?? 4] ?? 1.97) * (gpu.pcieWidth ?? 16);
  const stepS = offloadGb / bw;
  return `about ${stepS.toFixed(1)} s per decode step (${offloadGb} GB over PCIe Gen ${gpu.pcieGen ?? 4} x${gpu.pcieWidth ?? 16} at ~${bw.toFixed(0)} GB/s), so roughly ${(1 / stepS).toFixed(1)} tokens/s per request: far above the gateway's per-token latency gate, so it would not qualify`;
}

/** `pool`: the subnet's miners at the last chain epoch, for each option's expected earnings (null: not read, `why`). */
export function hardwareAlternatives(spec: MinerModelSpec, report: HardwareReport, pool: MinerPoolFacts | null = null, why = 'the chain was not read'): HardwareAlternative[] {
  const out: HardwareAlternative[] = [];
  const mines = expectedEarnings(true, pool, why);
  const two = planServe(spec, [card(0, 'NVIDIA GeForce RTX 4090', 24_564, '8.9'), card(1, 'NVIDIA GeForce RTX 4090', 24_564, '8.9')], 64).plan;
  if (two) {
    out.push({
      id: 'two-4090',
      title: '2x RTX 4090 (24 GB each)',
      summary: `The reference rig: declares ${two.maxInflight} concurrent requests across ${two.engines.length} engine(s). Add a second 4090 to a one-4090 rig, or rent such a machine.`,
      plan: two,
      ramNeedGiB: null,
      speed: null,
      onThisMachine: false,
      expected: mines,
    });
  }
  const big = planServe(spec, [card(0, 'NVIDIA RTX 6000 Ada / L40S (48 GB)', 49_140, '8.9')], 64).plan;
  if (big) {
    out.push({
      id: 'one-48gb',
      title: 'One 48 GB card (RTX 6000 Ada, L40S)',
      summary: `The model and its cache fit on one card: declares ${big.maxInflight} concurrent requests.`,
      plan: big,
      ramNeedGiB: null,
      speed: null,
      onThisMachine: false,
      expected: mines,
    });
  }
  const mine = report.gpus.filter((g) => fp8Capable(g, spec));
  const first = mine[0];
  if (first) {
    // Ask the planner with unlimited RAM to learn the offload size, then compare with this host.
    const r = planServe(spec, [first], Number.MAX_SAFE_INTEGER);
    const offload = r.offloaded ? (r.plan?.engines[0]?.cpuOffloadGb ?? 0) : 0;
    if (r.plan && offload > 0) {
      const need = offload + 16;
      const fits = report.host.ramGiB >= need;
      out.push({
        id: 'offload',
        title: `This ${first.name} with part of the weights in RAM`,
        summary: fits
          ? `${offload} GB of weights move to host RAM (--cpu-offload-gb) with a short context. It serves, slowly: good for trying the panel, not for earning.`
          : `It would move ${offload} GB of weights to host RAM, but this machine has ${report.host.ramGiB.toFixed(0)} GiB and needs about ${need} GiB.`,
        plan: r.plan,
        ramNeedGiB: need,
        speed: offloadSpeed(offload, first),
        onThisMachine: fits,
        expected: expectedEarnings(false, pool, why),
      });
    }
  }
  return out;
}
