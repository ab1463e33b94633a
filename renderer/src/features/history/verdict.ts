// The provider's per-miner row in plain sentences. Its field names are not published (PROTOCOL 8):
// the counts come from the same reader as the Earnings row and its details (earnings/figures.ts), and
// anything else is still said, under its own words.
import type { EpochEarnings } from '../../../../shared/earnings.ts';
import { epochFigures, fieldLabel, gateWords, providerCounts } from '../earnings/figures.ts';

const n = (v: number) => v.toLocaleString('en-US');

/** The collapsed verdict's first words: the gate and the share (the page adds the billed counts beside them). */
export function verdictHeadline(e: EpochEarnings): string {
  const gate = e.gate.passed === false ? `gate failed (${gateWords(e.gate.reason)})` : e.gate.passed ? 'gates passed' : 'gates not stated';
  return `${gate} · ${epochFigures(e).share} of the miner emission`;
}

export function verdictSentences(e: EpochEarnings): string[] {
  const row = e.row;
  const out: string[] = [];
  const share = `${epochFigures(e).share} of the miner emission (weight ${n(e.weight)} of 65,535)`;
  if (e.gate.passed === false) out.push(`Gate failed: ${gateWords(e.gate.reason)}, so this epoch scored 0 and earned ${share}.`);
  else out.push(`${e.gate.passed ? 'Every gate passed' : 'Gates not stated'}; the signed result gives this hotkey ${share}.`);
  if (!row) {
    out.push(e.burn ? 'Burn epoch: no billed traffic, the whole weight went to the subnet owner.' : 'The result has no row for this hotkey.');
    return out;
  }
  const c = providerCounts(row);
  if (c.ok !== null || c.failed !== null)
    out.push(`The provider counted ${n(c.ok ?? 0)} billed requests answered ok and ${n(c.failed ?? 0)} failed${c.tokens !== null ? `, ${n(c.tokens)} billed tokens in all` : ''}.`);
  else if (c.tokens !== null) out.push(`The provider counted ${n(c.tokens)} billed tokens.`);
  if (c.pass !== null || c.cheat !== null || c.unproven !== null)
    out.push(`Audits: ${n(c.pass ?? 0)} passed, ${n(c.cheat ?? 0)} judged cheat, ${n(c.unproven ?? 0)} unproven (counted, never penalised).`);
  if (c.score !== null) out.push(`Score ${n(c.score)} (tokens x the model's score rate / 1000, 0 when a gate fails).`);
  const rest = Object.entries(row).filter(
    ([k, v]) => !c.used.has(k) && !/hotkey|gate_?reason|^gates?_?pass(ed)?$/i.test(k) && (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean'),
  );
  if (rest.length > 0) out.push(`Also published: ${rest.map(([k, v]) => `${fieldLabel(k).toLowerCase()} ${typeof v === 'number' ? n(v) : String(v)}`).join('; ')}.`);
  return out;
}
