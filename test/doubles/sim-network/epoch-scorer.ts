// TEST DOUBLE (part of the simulated network): scores an epoch the way PROTOCOL section 7 says the
// master validator does, from what the gateway double saw. Integer arithmetic, gates in order, the
// weights scaled onto 65535 with the remainder to the highest score, a burn when nothing counted.

export interface WorkerTally {
  hotkey: string;
  /** Billed 2xx requests. */
  ok: number;
  /** Miner-attributable failures (502/504). */
  failed: number;
  promptTokens: number;
  completionTokens: number;
  verdicts: { pass: number; cheat: number; unproven: number };
  ttftP99Ms: number;
}

export interface ScoredRow {
  hotkey: string;
  tokens: number;
  score: number;
  gate_reason: string | null;
  requests_ok: number;
  requests_failed: number;
  verdicts_pass: number;
  verdicts_cheat: number;
  verdicts_unproven: number;
}

export interface ScoreRules {
  scoreRate: number;
  ttftCeilingMs: number;
}

export function gateReason(t: WorkerTally, rules: ScoreRules): string | null {
  const total = t.ok + t.failed;
  if (total > 0 && t.ok * 100 < total * 99) return 'acceptance';
  if (t.ttftP99Ms > rules.ttftCeilingMs) return 'ttft';
  const rendered = t.verdicts.pass + t.verdicts.cheat;
  if (rendered > 0 && t.verdicts.cheat * 100 > rendered) return 'cheat';
  return null;
}

export function scoreEpoch(tallies: WorkerTally[], rules: ScoreRules, ownerHotkey: string): { rows: ScoredRow[]; weights: Array<[string, number]> } {
  const rows = tallies.map((t) => {
    const tokens = t.promptTokens + t.completionTokens;
    const reason = gateReason(t, rules);
    return {
      hotkey: t.hotkey,
      tokens,
      score: reason === null ? Math.floor((tokens * rules.scoreRate) / 1000) : 0,
      gate_reason: reason,
      requests_ok: t.ok,
      requests_failed: t.failed,
      verdicts_pass: t.verdicts.pass,
      verdicts_cheat: t.verdicts.cheat,
      verdicts_unproven: t.verdicts.unproven,
    };
  });
  const total = rows.reduce((s, r) => s + r.score, 0);
  if (total === 0) return { rows, weights: [[ownerHotkey, 65535]] };
  const scored = rows.filter((r) => r.score > 0);
  const weights = scored.map((r) => [r.hotkey, Math.floor((r.score * 65535) / total)] as [string, number]);
  const remainder = 65535 - weights.reduce((s, [, w]) => s + w, 0);
  let top = 0;
  scored.forEach((r, i) => {
    if (r.score > scored[top]!.score) top = i;
  });
  weights[top]![1] += remainder;
  return { rows, weights };
}
