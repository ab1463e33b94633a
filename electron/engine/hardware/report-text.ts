import type { HardwareReport } from '../../../shared/hardware.ts';

/** The hardware report as plain text for a terminal. */
export function formatHardwareReport(r: HardwareReport): string {
  const lines: string[] = [];
  lines.push(
    `Host: ${r.host.hostname} — ${r.host.os}, ${r.host.cpus} CPU cores (${r.host.cpuModel}), ${r.host.ramGiB.toFixed(0)} GiB RAM, ${r.host.diskFreeGiB === null ? 'unknown' : r.host.diskFreeGiB.toFixed(0) + ' GiB'} free at ${r.host.diskPath}`,
  );
  lines.push(`NVIDIA: nvidia-smi ${r.nvidiaSmi}${r.cudaVersion ? `, CUDA ${r.cudaVersion}` : ''}`);
  for (const g of r.gpus) {
    lines.push(`  GPU ${g.index}: ${g.name}, ${(g.memoryTotalMiB / 1024).toFixed(1)} GiB, compute ${g.computeCap ?? '?'}, driver ${g.driverVersion ?? '?'}`);
  }
  lines.push('', `Verdict: ${r.verdict.toUpperCase()}`);
  for (const reason of r.reasons) lines.push(`  [${reason.severity}] ${reason.text}`);
  if (r.plan) {
    lines.push('', `Serve plan (${r.plan.engines.length} engine(s), MAX_INFLIGHT ${r.plan.maxInflight}):`);
    for (const why of r.plan.rationale) lines.push(`  ${why}`);
    for (const e of r.plan.engines) {
      const a = e.arithmetic;
      lines.push(
        `  engine ${e.index}: GPUs ${e.gpuIndices.join(',')} tp${e.tp} --mem-fraction-static ${e.memFractionStatic} --kv-cache-dtype ${e.kvCacheDtype} --context-length ${e.contextLength} --max-running-requests ${e.maxRunningRequests}${e.cpuOffloadGb ? ` --cpu-offload-gb ${e.cpuOffloadGb}` : ''} ${e.extraArgs.join(' ')}`.trimEnd(),
        `    env ${Object.entries(e.env)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}; declares ${e.declaredInflight}`,
        `    arithmetic: weights ${a.weightsGiB} GiB, KV ${(a.kvBytesPerToken / 1024).toFixed(0)} KiB/token/card, state ${a.perRequestStateMiB.toFixed(0)} MiB/request, usable ${a.usableVramGiB.toFixed(1)} GiB -> ~${Math.round(a.tokensThatFit / 1000)}k tokens fit`,
      );
    }
  }
  return lines.join('\n') + '\n';
}
