// The provider's per-miner row in plain sentences. Its field names are not published (PROTOCOL 8):
// known shapes are read by pattern, anything else is still said, as "<field words>: <value>".
import type { EpochEarnings } from '../../../../shared/earnings.ts';

const n = (v: number) => v.toLocaleString('en-US');
const GATE_WORDS: Record<string, string> = {
  acceptance: 'acceptance below 99 %',
  ttft: 'TTFT p99 above the model gate',
  tpot: 'TPOT p99 above the model gate',
  cheat: 'more than 1 % of audits judged cheat',
};

function pick(row: Record<string, unknown>, re: RegExp): number | null {
  for (const [k, v] of Object.entries(row)) if (re.test(k) && typeof v === 'number' && Number.isFinite(v)) return v;
  return null;
}

export function verdictSentences(e: EpochEarnings): string[] {
  const row = e.row;
  const out: string[] = [];
  const share = `${(e.weightShare * 100).toFixed(2)} % of the miner emission (weight ${n(e.weight)} of 65,535)`;
  if (e.gate.passed === false) out.push(`Gate failed: ${GATE_WORDS[e.gate.reason ?? ''] ?? e.gate.reason ?? 'no reason given'}, so this epoch scored 0 and earned ${share}.`);
  else out.push(`${e.gate.passed ? 'Every gate passed' : 'Gates not stated'}; the signed result gives this hotkey ${share}.`);
  if (!row) {
    out.push(e.burn ? 'Burn epoch: no billed traffic, the whole weight went to the subnet owner.' : 'The result has no row for this hotkey.');
    return out;
  }
  const used = new Set<string>();
  const take = (re: RegExp) => {
    for (const [k, v] of Object.entries(row)) if (re.test(k) && typeof v === 'number') used.add(k);
    return pick(row, re);
  };
  const ok = take(/^requests?_?(ok|success)/i);
  const failed = take(/^requests?_?(failed|errors?)/i);
  const tokens = take(/^tokens$|total_tokens/i);
  if (ok !== null || failed !== null) out.push(`The provider counted ${n(ok ?? 0)} billed requests answered and ${n(failed ?? 0)} failed${tokens !== null ? `, ${n(tokens)} tokens in all` : ''}.`);
  else if (tokens !== null) out.push(`The provider counted ${n(tokens)} billed tokens.`);
  const pass = take(/verdicts?_?pass/i);
  const cheat = take(/verdicts?_?cheat/i);
  const unproven = take(/verdicts?_?unproven/i);
  if (pass !== null || cheat !== null || unproven !== null) out.push(`Audits: ${n(pass ?? 0)} passed, ${n(cheat ?? 0)} judged cheat, ${n(unproven ?? 0)} unproven (counted, never penalised).`);
  const score = take(/^score(_micro)?$/i);
  if (score !== null) out.push(`Score ${n(score)} (tokens x the model's score rate / 1000, 0 when a gate fails).`);
  const rest = Object.entries(row).filter(([k, v]) => !used.has(k) && !/hotkey|gate_?reason|^gates?_?pass(ed)?$/i.test(k) && (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean'));
  if (rest.length > 0) out.push(`Also published: ${rest.map(([k, v]) => `${k.replace(/_/g, ' ')} ${typeof v === 'number' ? n(v) : String(v)}`).join('; ')}.`);
  return out;
}
