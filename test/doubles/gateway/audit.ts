// TEST DOUBLE (gateway): audits a miner's commitment the way the engy auditor does, by
// recomputing the activations with the fake serve's deterministic model and verifying the
// TOPLOC proof against them. Verdicts: pass, cheat, unproven.
import type { Commitment } from '../../../electron/engine/miner/frames.ts';
import { TOPLOC_P, TOPLOC_V, type ProofPort } from '../../../electron/engine/miner/proof-port.ts';
import { float32ArrayToBf16 } from '../../../electron/engine/proof/index.ts';
import { computeHiddenStates } from '../fake-sglang/model.ts';
import { loadCheckpointSpec, type CheckpointSpec } from '../fake-sglang/vocab-plan.ts';

export type Verdict = 'pass' | 'cheat' | 'unproven';

export interface AuditResult {
  requestId: string;
  verdict: Verdict;
  /** Mean top-k exponent mismatch / k. */
  score: number | null;
  chunks: number;
  reason: string | null;
}

export type Auditor = (requestId: string, c: Commitment) => Promise<AuditResult>;

export function createModelAuditor(checkpointDir: string, proof: ProofPort, opts: { expectedModelRoot?: string; seed?: number } = {}): Auditor {
  const spec: CheckpointSpec = loadCheckpointSpec(checkpointDir);
  return async (requestId, c) => {
    const t = c.toploc;
    if (opts.expectedModelRoot !== undefined && c.model_root !== opts.expectedModelRoot) {
      return { requestId, verdict: 'cheat', score: null, chunks: 0, reason: `model_root ${c.model_root.slice(0, 12)} is not the published one` };
    }
    if (t.n_tokens !== c.output_token_ids.length || t.n_tokens === 0 || t.prompt_ids.length === 0) {
      return { requestId, verdict: 'unproven', score: null, chunks: 0, reason: `n_tokens ${t.n_tokens} does not match ${c.output_token_ids.length} output ids` };
    }
    // Row k is the hidden state after prompt + output[0..k-1]: it sampled output token k.
    const seq = [...t.prompt_ids, ...c.output_token_ids.slice(0, -1)];
    const rows = computeHiddenStates(seq, { hiddenSize: spec.hiddenSize, vocab: spec.vocab, seed: opts.seed }, t.prompt_ids.length - 1).map((r) => float32ArrayToBf16(r));
    const v = await proof.verifyProofs(t.proofs, rows, t.topk, t.decode_batching_size);
    if (v.chunks === 0 || v.unusable === v.chunks) return { requestId, verdict: 'unproven', score: null, chunks: v.chunks, reason: 'no usable proof chunk' };
    // A chunk passes with at most toploc_v exponent mismatches; the request needs toploc_p of its chunks to pass.
    const passing = v.mismatches.filter((m) => m <= TOPLOC_V).length;
    const verdict: Verdict = passing / v.chunks >= TOPLOC_P ? 'pass' : 'cheat';
    const reason = verdict === 'cheat' ? `${v.chunks - passing} of ${v.chunks} chunks above ${TOPLOC_V} mismatches, mean ${v.score.toFixed(2)}` : null;
    return { requestId, verdict, score: v.score, chunks: v.chunks, reason };
  };
}
