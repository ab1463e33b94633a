// Shared by the trim test and bench: one /generate call on a fake serve, its body size, and the
// proofs built from what the incremental parser kept.
import { buildProofs, GenerateBodyParser, MINER_PROOF_PARAMS } from '../../electron/engine/proof/index.ts';

export interface TrimCall {
  bytes: number;
  parseMs: number;
  proofs: string[];
  outputTokenIds: number[];
}

export function promptIds(n: number, seed = 7): number[] {
  const ids: number[] = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    ids.push(20 + (x % 380));
  }
  return ids;
}

export async function generateAndProve(serveUrl: string, inputIds: number[], maxNew: number, stream: boolean): Promise<TrimCall> {
  const res = await fetch(`${serveUrl}/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input_ids: inputIds, sampling_params: { temperature: 0, max_new_tokens: maxNew }, return_hidden_states: true, return_logprob: true, stream }),
  });
  if (!res.ok || !res.body) throw new Error(`serve answered ${res.status}`);
  const parser = new GenerateBodyParser({});
  let bytes = 0;
  const t0 = performance.now();
  for await (const chunk of res.body) {
    bytes += chunk.byteLength;
    parser.push(chunk);
  }
  const body = parser.end();
  const parseMs = performance.now() - t0;
  return { bytes, parseMs, proofs: buildProofs(body.rows, MINER_PROOF_PARAMS), outputTokenIds: body.outputTokenIds };
}
