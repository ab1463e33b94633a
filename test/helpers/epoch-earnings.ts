// One ended epoch's earnings (shared/earnings.ts EpochEarnings) for renderer tests: epoch 7, half the
// weight, gate passed, one hour, the provider's row with its counts and verdicts, this rig's own served
// records (more than billed: probes and unbilled traffic); `over` sets what a test varies.
import type { EpochEarnings } from '../../shared/earnings.ts';

export function epochEarnings(over: Partial<EpochEarnings> = {}): EpochEarnings {
  return {
    epochIndex: 7,
    digest: 'ab'.repeat(32),
    epochStart: null,
    epochEnd: null,
    weight: 32768,
    weightShare: 32768 / 65535,
    gate: { passed: true, reason: null },
    burn: false,
    startMs: 0,
    endMs: 3_600_000,
    row: { hotkey: '5Rig', tokens: 146, score: 2920, gate_reason: null, requests_ok: 9, requests_failed: 1, verdicts_pass: 3, verdicts_cheat: 0, verdicts_unproven: 1, latency_p99_ms: 812 },
    projectedTao: 0.01,
    projectedNote: '50.00 % x 1.000 α/s x 3600 s x 0.01 τ/α',
    realisedTao: 0.004,
    realisedNote: '2 chain reads',
    realisedRunning: false,
    tokens: { requests: 31, promptTokens: 2000, completionTokens: 643 },
    ...over,
  };
}
