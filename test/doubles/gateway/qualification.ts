// TEST DOUBLE (gateway): the onboarding rule operators describe: >= 99% of probe requests
// answered, latency inside the ceilings, and TOPLOC proofs that pass the audit.
import type { ServeResult } from './gateway-double.ts';

export interface ProbeRule {
  minSuccess: number;
  ttftCeilingMs: number;
  e2eCeilingMs: number;
  /** Share of cheat verdicts above which the worker is refused. */
  maxCheatShare: number;
}

export const DEFAULT_PROBE_RULE: ProbeRule = { minSuccess: 0.99, ttftCeilingMs: 100_000, e2eCeilingMs: 1_800_000, maxCheatShare: 0.01 };

export function judgeProbe(results: readonly ServeResult[], rule: ProbeRule, audited: boolean): { ok: true } | { ok: false; reason: string } {
  if (results.length === 0) return { ok: false, reason: 'no probe request was served' };
  const ok = results.filter((r) => r.response?.commitment);
  const share = ok.length / results.length;
  if (share < rule.minSuccess) {
    const err = results.find((r) => r.response?.error)?.response?.error;
    return { ok: false, reason: `probe success ${(share * 100).toFixed(1)}% below ${(rule.minSuccess * 100).toFixed(0)}%${err ? ` (${err.message.slice(0, 80)})` : ''}` };
  }
  const slowest = Math.max(...ok.map((r) => r.ttftMs));
  if (slowest > rule.ttftCeilingMs) return { ok: false, reason: `probe TTFT ${Math.round(slowest / 1000)} s above the ${Math.round(rule.ttftCeilingMs / 1000)} s ceiling` };
  const longest = Math.max(...ok.map((r) => r.e2eMs));
  if (longest > rule.e2eCeilingMs) return { ok: false, reason: `probe latency ${Math.round(longest / 1000)} s above the ${Math.round(rule.e2eCeilingMs / 1000)} s deadline` };
  if (audited) {
    const cheats = ok.filter((r) => r.audit?.verdict === 'cheat');
    if (cheats.length / ok.length > rule.maxCheatShare) {
      return { ok: false, reason: `TOPLOC proof failure: ${cheats.length} of ${ok.length} probe proofs failed the audit (${cheats[0]?.audit?.reason ?? ''})` };
    }
  }
  return { ok: true };
}
