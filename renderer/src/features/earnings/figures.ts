// An epoch's figures, read once: the Earnings row, its details and History's verdicts all take them from
// here, so "tokens" means one thing on every page. Two different counts exist and are never mixed up:
// the tokens the provider BILLED (its signed row: paid traffic only) and the tokens this rig SERVED in
// the window by its own records (probes and unbilled traffic included), each with its own label.
// The provider's field names are not published (PROTOCOL 8): known shapes are read by pattern.
import type { EpochEarnings } from '../../../../shared/earnings.ts';
import { profitOverSpan, type SpanProfit } from '../../../../shared/profit.ts';
import type { TauPriceSnapshot } from '../../../../shared/price.ts';
import { num } from '../common/format.ts';

/** The provider's counts for this hotkey, each with the row field it came from (null: not published). */
export interface ProviderCounts {
  tokens: number | null;
  ok: number | null;
  failed: number | null;
  pass: number | null;
  cheat: number | null;
  unproven: number | null;
  score: number | null;
  /** Row fields read into the counts above (the rest is shown under its own words). */
  used: Set<string>;
}

const PATTERNS = {
  ok: /^requests?_?(ok|success)/i,
  failed: /^requests?_?(failed|errors?)/i,
  tokens: /^tokens$|total_tokens/i,
  pass: /verdicts?_?pass/i,
  cheat: /verdicts?_?cheat/i,
  unproven: /verdicts?_?unproven/i,
  score: /^score(_micro)?$/i,
} as const;

export function providerCounts(row: Record<string, unknown> | null): ProviderCounts {
  const used = new Set<string>();
  const take = (re: RegExp): number | null => {
    if (!row) return null;
    let found: number | null = null;
    for (const [k, v] of Object.entries(row)) {
      if (!re.test(k) || typeof v !== 'number' || !Number.isFinite(v)) continue;
      used.add(k);
      if (found === null) found = v;
    }
    return found;
  };
  return {
    tokens: take(PATTERNS.tokens),
    ok: take(PATTERNS.ok),
    failed: take(PATTERNS.failed),
    pass: take(PATTERNS.pass),
    cheat: take(PATTERNS.cheat),
    unproven: take(PATTERNS.unproven),
    score: take(PATTERNS.score),
    used,
  };
}

/** Human words for a provider field: the known ones by name, any other from its own words ("foo_bar" -> "Foo bar"). */
const FIELD_WORDS: Record<string, string> = {
  hotkey: 'Hotkey',
  tokens: 'Billed tokens (provider)',
  total_tokens: 'Billed tokens (provider)',
  score: 'Score',
  score_micro: 'Score',
  gate_reason: 'Gate failed on',
  gates_passed: 'Gates passed',
  gate_passed: 'Gates passed',
  requests_ok: 'Billed requests answered ok',
  requests_failed: 'Billed requests failed',
  verdicts_pass: 'Audits passed',
  verdicts_cheat: 'Audits judged cheat',
  verdicts_unproven: 'Audits unproven',
};

export function fieldLabel(key: string): string {
  if (Object.hasOwn(FIELD_WORDS, key)) return FIELD_WORDS[key]!;
  const words = key
    .replace(/[_\-.]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words.length === 0 ? key : words[0]!.toUpperCase() + words.slice(1);
}

export const GATE_WORDS: Record<string, string> = {
  acceptance: 'acceptance below 99 %',
  ttft: 'TTFT p99 above the model gate',
  tpot: 'TPOT p99 above the model gate',
  cheat: 'more than 1 % of audits judged cheat',
};

export function gateWords(reason: string | null): string {
  if (reason === null) return 'no reason given';
  return Object.hasOwn(GATE_WORDS, reason) ? GATE_WORDS[reason]! : reason;
}

const countText = (v: number | null) => (v === null ? '—' : num(v));

/** The epoch's shared figures as text, one string per figure: what every page shows for it. */
export interface EpochFigureText {
  billedTokens: string;
  /** "146 ok · 2 failed" (billed requests, from the provider). */
  billedRequests: string;
  servedTokens: string;
  servedRequests: string;
  share: string;
}

export function epochFigures(e: EpochEarnings): EpochFigureText {
  const c = providerCounts(e.row);
  return {
    billedTokens: countText(c.tokens),
    billedRequests: c.ok === null && c.failed === null ? '—' : `${num(c.ok ?? 0)} ok · ${num(c.failed ?? 0)} failed`,
    servedTokens: e.tokens ? num(e.tokens.promptTokens + e.tokens.completionTokens) : '—',
    servedRequests: e.tokens ? num(e.tokens.requests) : '—',
    share: `${(e.weightShare * 100).toFixed(2)} %`,
  };
}

/** The epoch's money: projected τ in the currency, the GPUs' electricity over its window, and the net. */
export function epochMoney(e: EpochEarnings, price: TauPriceSnapshot | null, powerW: number | null, kwhPrice: number | null): SpanProfit {
  const durationMs = e.startMs !== null && e.endMs !== null && e.endMs > e.startMs ? e.endMs - e.startMs : null;
  return profitOverSpan({ tao: e.projectedTao, durationMs, price, powerW, kwhPrice });
}

/** Money with its currency: "1.23 USD", "−0.04 USD", "—". Small amounts keep enough digits to be seen. */
export function money(x: number | null, cur: string): string {
  if (x === null) return '—';
  const a = Math.abs(x);
  const digits = a === 0 || a >= 1 ? 2 : a >= 0.01 ? 3 : 5;
  return `${x < 0 ? '−' : ''}${a.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${cur}`;
}
