import type { FitReason, FitVerdict, GpuInfo, HostInfo, HardwareReport, ServePlan } from '../../../shared/hardware.ts';
import type { CheckpointFolderVerdict } from '../../../shared/sglang-setup.ts';
import type { MinerModelSpec } from '../../../shared/models.ts';
import type { NvidiaSmiResult } from './nvidia-smi.ts';
import { fp8Capable, GATEWAY_MIN_DECLARED, planServe, selectGpus, TARGET_DECLARED } from './serve-plan.ts';

const fmt = (n: number, d = 1) => n.toFixed(d);

function driverMajor(v: string | null): number | null {
  if (!v) return null;
  const n = Number(v.split('.')[0]);
  return Number.isFinite(n) ? n : null;
}

export interface FitInput {
  spec: MinerModelSpec;
  smi: NvidiaSmiResult;
  otherGpus: GpuInfo[];
  host: HostInfo;
  at?: number;
  /** Settings > GPUs: the indices the serve may use; null or absent: every eligible card. */
  allowedGpus?: readonly number[] | null;
}

const VALIDATOR_HINT = 'You can still run the light validator: it needs no GPU (Setup > Role > Validate).';

/** The whole hardware verdict: which cards qualify, the plan, and every reason in plain words. */
export function checkFit({ spec, smi, otherGpus, host, at = Date.now(), allowedGpus = null }: FitInput): HardwareReport {
  const reasons: FitReason[] = [];
  const base = { at, host, cudaVersion: smi.status === 'ok' ? smi.cudaVersion : null, nvidiaSmi: smi.status };
  const blocked = (gpus: GpuInfo[], extra: Partial<HardwareReport> = {}): HardwareReport => ({
    ...base,
    gpus,
    verdict: 'unsupported',
    reasons,
    plan: null,
    suggestValidator: true,
    ...extra,
  });

  if (smi.status === 'missing') {
    const seen = otherGpus.length > 0 ? ` (found: ${otherGpus.map((g) => g.name).join(', ')})` : '';
    reasons.push({
      severity: 'blocker',
      text: `No NVIDIA GPU found: nvidia-smi is not installed${seen}. Mining needs an NVIDIA GPU with FP8 (RTX 40/50 series, L40S, H100...) and its driver. ${VALIDATOR_HINT}`,
    });
    return blocked(otherGpus);
  }
  if (smi.status === 'failed') {
    reasons.push({
      severity: 'blocker',
      text: `nvidia-smi failed: "${smi.error}". The NVIDIA driver is not working: reinstall or reload it (a reboot after a driver update often fixes this), then check again. ${VALIDATOR_HINT}`,
    });
    return blocked(otherGpus, { nvidiaSmiError: smi.error });
  }
  const gpus = [...smi.gpus, ...otherGpus];
  if (smi.gpus.length === 0) {
    reasons.push({ severity: 'blocker', text: `nvidia-smi lists no GPU. Check that the card is seated and the driver loaded. ${VALIDATOR_HINT}` });
    return blocked(gpus);
  }

  const capable = smi.gpus.filter((g) => fp8Capable(g, spec));
  const { chosen: eligible, leftOut } = selectGpus(capable, allowedGpus);
  for (const g of leftOut) {
    reasons.push({ severity: 'warn', text: `GPU ${g.index} ${g.name} is left out of the serve by your choice in Settings > GPUs.` });
  }
  if (capable.length > 0 && eligible.length === 0) {
    reasons.push({
      severity: 'blocker',
      text: `None of the GPUs chosen in Settings > GPUs (${(allowedGpus ?? []).join(', ')}) can serve: choose among ${capable.map((g) => g.index).join(', ')}, or clear the choice to use every card.`,
    });
    return blocked(gpus);
  }
  for (const g of smi.gpus.filter((g) => !fp8Capable(g, spec))) {
    reasons.push({
      severity: eligible.length > 0 ? 'limit' : 'blocker',
      text: `GPU ${g.index} ${g.name} (compute capability ${g.computeCap ?? 'unknown'}) cannot run FP8: it needs ${spec.memory.minComputeCap} or newer (Ada, Hopper, Blackwell).${eligible.length > 0 ? ' It is left out of the plan.' : ''}`,
    });
  }
  if (eligible.length === 0) {
    reasons.push({ severity: 'blocker', text: `No GPU here can serve ${spec.displayName}: FP8 unsupported. ${VALIDATOR_HINT}` });
    return blocked(gpus);
  }

  const minDriver = Number(spec.memory.minDriver);
  const drv = driverMajor(eligible[0]!.driverVersion);
  if (drv !== null && drv < minDriver) {
    reasons.push({
      severity: 'blocker',
      text: `NVIDIA driver ${eligible[0]!.driverVersion} is too old: sglang's CUDA 12.8+ builds need driver ${minDriver} or newer. Update the driver, reboot, and check again.`,
    });
  }
  if (host.ramGiB < 32) {
    reasons.push({ severity: 'warn', text: `${fmt(host.ramGiB)} GiB of RAM: loading the weights wants at least 32 GiB; with less, loading is slow and may fail.` });
  }

  const { plan, offloaded } = planServe(spec, eligible, host.ramGiB);
  if (!plan) {
    const vram = eligible.reduce((s, g) => s + g.memoryTotalMiB / 1024, 0);
    reasons.push({
      severity: 'blocker',
      text: `${fmt(vram, 0)} GiB of FP8-capable VRAM cannot hold the ~${spec.memory.weightsGiB} GiB of weights plus the KV cache, and host RAM is too small to offload the rest. Add a second card (2x RTX 4090 works) or use a 48 GB card.`,
    });
    return blocked(gpus);
  }
  reasons.push(...planReasons(plan, offloaded));
  const verdict: FitVerdict = reasons.some((r) => r.severity === 'blocker') ? 'unsupported' : reasons.some((r) => r.severity === 'limit') ? 'ready-with-limits' : 'ready';
  return { ...base, gpus, verdict, reasons, plan, suggestValidator: verdict === 'unsupported' };
}

function planReasons(plan: ServePlan, offloaded: boolean): FitReason[] {
  const out: FitReason[] = [];
  if (offloaded) out.push({ severity: 'limit', text: plan.rationale[plan.rationale.length - 1]! });
  for (const e of plan.engines) {
    const a = e.arithmetic;
    const label = `Engine ${e.index} (GPU ${e.gpuIndices.join('+')}, tp${e.tp})`;
    if (e.contextLimited) {
      out.push({
        severity: 'limit',
        text: `${label}: the KV cache holds about ${Math.round(a.tokensThatFit / 1000)}k tokens, so the context is limited to ${e.contextLength.toLocaleString('en-US')} tokens instead of 262,144: the longest prompts the gateway routes will fail on this engine.`,
      });
    }
    if (e.declaredInflight < GATEWAY_MIN_DECLARED) {
      out.push({
        severity: 'blocker',
        text: `${label}: room for ${e.declaredInflight} concurrent requests, below the gateway's minimum of ${GATEWAY_MIN_DECLARED} (one per leg). This worker would be refused.`,
      });
    } else if (e.declaredInflight < TARGET_DECLARED) {
      out.push({ severity: 'limit', text: `${label}: declares ${e.declaredInflight} concurrent requests; operators saw fewer than ${TARGET_DECLARED} (3 per leg) onboard only some legs.` });
    }
  }
  if (!out.some((r) => r.severity !== 'ok')) out.push({ severity: 'ok', text: `Ready: ${plan.engines.length} engine(s), declaring ${plan.maxInflight} concurrent requests in total.` });
  return out;
}

/**
 * The checkpoint folder's room (serve/checkpoint/folder-space.ts, the same verdict Setup and Settings
 * show) joins the GPU verdict: a rig that cannot hold what is still to download is not "Ready to mine"
 * but ready with a limit that says how much to free. Kept apart from checkFit so a download or a
 * new folder re-applies it without asking nvidia-smi again.
 */
export function withCheckpointSpace(report: HardwareReport, space: CheckpointFolderVerdict | null): HardwareReport {
  if (!space || report.verdict === 'unsupported') return { ...report, space };
  if (space.ok) return { ...report, space };
  const reasons: FitReason[] = [...report.reasons.filter((r) => !r.text.startsWith('Ready: ')), { severity: 'limit', text: `Checkpoint disk: ${space.sentence}` }];
  return { ...report, space, reasons, verdict: report.verdict === 'ready' ? 'ready-with-limits' : report.verdict };
}
