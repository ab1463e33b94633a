import type { HardwareReport } from '../../../shared/hardware.ts';
import type { RuntimeReport } from '../../../shared/serve.ts';
import type { LaunchSpec } from './launch-plan.ts';

/** What `serve plan` shows, in a shape scripts can read. */
export interface ServePlanView {
  verdict: HardwareReport['verdict'];
  reasons: string[];
  runtime: LaunchSpec['runtime'] | null;
  runtimeNotes: string[];
  checkpoint: string;
  trim: { dir: string | null; problem: string | null };
  maxInflight: number;
  engines: Array<{
    index: number;
    gpuIndices: number[];
    port: number;
    url: string;
    command: string;
    args: string[];
    env: Record<string, string>;
    shellLine: string;
    declaredInflight: number;
  }>;
  rationale: string[];
}

export function planView(report: HardwareReport, runtimes: RuntimeReport | null, specs: LaunchSpec[], checkpoint: string, trim: ServePlanView['trim']): ServePlanView {
  const plan = report.plan;
  return {
    verdict: report.verdict,
    reasons: report.reasons.map((r) => `${r.severity}: ${r.text}`),
    runtime: specs[0]?.runtime ?? null,
    runtimeNotes: runtimes?.notes ?? [],
    checkpoint,
    trim,
    maxInflight: plan?.maxInflight ?? 0,
    engines: specs.map((s) => ({
      index: s.engineIndex,
      gpuIndices: s.gpuIndices,
      port: s.port,
      url: s.url,
      command: s.command,
      args: s.args,
      env: s.env,
      shellLine: s.shellLine,
      declaredInflight: plan?.engines.find((e) => e.index === s.engineIndex)?.declaredInflight ?? 0,
    })),
    rationale: plan?.rationale ?? [],
  };
}

export function formatPlanView(v: ServePlanView): string {
  const out: string[] = [];
  out.push(`verdict: ${v.verdict}`);
  for (const r of v.reasons) out.push(`  ${r}`);
  if (v.engines.length === 0) {
    out.push('', 'No serve plan for this hardware.');
    return out.join('\n') + '\n';
  }
  out.push('', `runtime: ${v.runtime}`);
  for (const n of v.runtimeNotes) out.push(`  ${n}`);
  out.push(`checkpoint: ${v.checkpoint}`);
  out.push(v.trim.dir ? `hidden-states trim: ${v.trim.dir}` : `hidden-states trim: NOT FOUND (${v.trim.problem ?? 'unknown'})`);
  for (const e of v.engines) {
    out.push('', `engine ${e.index}: GPUs ${e.gpuIndices.join(',')}  port ${e.port}  (${e.url})  declares ${e.declaredInflight}`);
    out.push('  environment:');
    for (const [k, val] of Object.entries(e.env)) out.push(`    ${k}=${val}`);
    out.push(`  argv: ${JSON.stringify([e.command, ...e.args])}`);
    out.push('  command:');
    out.push(`    ${e.shellLine}`);
  }
  out.push('', `MAX_INFLIGHT to declare: ${v.maxInflight}`);
  if (v.rationale.length > 0) {
    out.push('', 'why this shape:');
    for (const r of v.rationale) out.push(`  - ${r}`);
  }
  return out.join('\n') + '\n';
}
