import { describe, expect, it } from 'vitest';
import { gateReason, scoreEpoch, type ScoreRules, type WorkerTally } from '../../doubles/sim-network/epoch-scorer.ts';

const RULES: ScoreRules = { scoreRate: 1000, ttftCeilingMs: 100_000 };
const OWNER = 'owner';

function tally(hotkey: string, over: Partial<WorkerTally> = {}): WorkerTally {
  return { hotkey, ok: 100, failed: 0, promptTokens: 900, completionTokens: 100, verdicts: { pass: 10, cheat: 0, unproven: 0 }, ttftP99Ms: 1_000, ...over };
}

describe('the simulated master scorer (PROTOCOL 7)', () => {
  it('scores floor(tokens x rate / 1000) and splits 65535 by score, the remainder to the top row', () => {
    const { rows, weights } = scoreEpoch(
      [tally('a', { promptTokens: 1000, completionTokens: 0 }), tally('b', { promptTokens: 500, completionTokens: 0 }), tally('c', { promptTokens: 499, completionTokens: 0 })],
      { ...RULES, scoreRate: 1500 },
      OWNER,
    );
    expect(rows.map((r) => r.score)).toEqual([1500, 750, 748]);
    const total = 1500 + 750 + 748;
    const floors = [1500, 750, 748].map((s) => Math.floor((s * 65535) / total));
    expect(weights).toEqual([
      ['a', floors[0]! + (65535 - floors.reduce((x, y) => x + y, 0))],
      ['b', floors[1]],
      ['c', floors[2]],
    ]);
    expect(weights.reduce((s, [, w]) => s + w, 0)).toBe(65535);
  });

  it('applies the gates in order and records the first failure; a gated row scores 0 and gets no weight', () => {
    expect(gateReason(tally('x', { ok: 98, failed: 2 }), RULES)).toBe('acceptance');
    expect(gateReason(tally('x', { ok: 99, failed: 1 }), RULES)).toBeNull();
    // Acceptance fails first even when the TTFT and the proofs are bad too.
    expect(gateReason(tally('x', { ok: 1, failed: 1, ttftP99Ms: 200_000, verdicts: { pass: 0, cheat: 5, unproven: 0 } }), RULES)).toBe('acceptance');
    expect(gateReason(tally('x', { ttftP99Ms: 100_001, verdicts: { pass: 0, cheat: 5, unproven: 0 } }), RULES)).toBe('ttft');
    expect(gateReason(tally('x', { verdicts: { pass: 99, cheat: 2, unproven: 0 } }), RULES)).toBe('cheat');
    expect(gateReason(tally('x', { verdicts: { pass: 99, cheat: 1, unproven: 50 } }), RULES)).toBeNull();
    const { rows, weights } = scoreEpoch([tally('honest'), tally('cheat', { verdicts: { pass: 0, cheat: 8, unproven: 0 } })], RULES, OWNER);
    expect(rows[1]).toMatchObject({ hotkey: 'cheat', score: 0, gate_reason: 'cheat', verdicts_cheat: 8 });
    expect(weights).toEqual([['honest', 65535]]);
  });

  it('burns the whole 65535 to the owner hotkey when nothing counted', () => {
    expect(scoreEpoch([], RULES, OWNER).weights).toEqual([[OWNER, 65535]]);
    const { rows, weights } = scoreEpoch([tally('idle', { ok: 0, promptTokens: 0, completionTokens: 0 }), tally('gated', { failed: 50 })], RULES, OWNER);
    expect(rows.map((r) => r.gate_reason)).toEqual([null, 'acceptance']);
    expect(weights).toEqual([[OWNER, 65535]]);
  });
});
