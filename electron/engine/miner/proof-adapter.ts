// Binds the miner's ProofPort to the proof engine. Body parsing: an interim whole-body parser
// on the calling thread, until the proof engine's incremental parser and worker pool land
// (then openBodyParser moves to the pool and nothing else in the miner changes).
import { buildProofs, float64ToBf16, verifyProofs, type Bf16Rows } from '../proof/index.ts';
import type { BodyParseSession, GenerateCallParse, ProofPort, ProofVerifyResult } from './proof-port.ts';

function flatten(rows: Uint16Array[]): Bf16Rows {
  const hidden = rows[0]?.length ?? 0;
  const data = new Uint16Array(rows.length * hidden);
  rows.forEach((r, i) => data.set(r, i * hidden));
  return { data, rowCount: rows.length, hiddenSize: hidden };
}

export function createProofPort(): ProofPort {
  return {
    openBodyParser: (kind) => new WholeBodyParser(kind),
    buildProofs: async (rows, topk, batching) => buildProofs(flatten(rows), { topk, decodeBatchingSize: batching, skipPrefill: true }),
    verifyProofs: async (proofs, rows, topk, batching): Promise<ProofVerifyResult> => {
      const checks = verifyProofs(flatten(rows), proofs, { topk, decodeBatchingSize: batching, skipPrefill: true });
      const unusable = checks.filter((c) => c.failure !== null).length;
      const mean = checks.length > 0 ? checks.reduce((n, c) => n + c.expMismatches, 0) / checks.length : 0;
      return { score: mean / topk, chunks: checks.length, unusable, mismatches: checks.map((c) => c.expMismatches) };
    },
  };
}

interface GenerateBody {
  text?: unknown;
  error?: unknown;
  meta_info?: {
    output_token_logprobs?: unknown[][];
    hidden_states?: unknown[];
    finish_reason?: { type?: unknown; message?: unknown } | null;
    cached_tokens?: unknown;
  };
}

class WholeBodyParser implements BodyParseSession {
  private parts: Buffer[] = [];
  private readonly kind: 'json' | 'sse';

  constructor(kind: 'json' | 'sse') {
    this.kind = kind;
  }

  push(chunk: Buffer): void {
    this.parts.push(Buffer.from(chunk));
  }

  discard(): void {
    this.parts = [];
  }

  async end(): Promise<GenerateCallParse> {
    const text = Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    let body: GenerateBody | GenerateBody[] | null = null;
    if (this.kind === 'json') body = JSON.parse(text) as GenerateBody;
    else {
      for (const line of text.split('\n')) {
        const data = line.startsWith('data:') ? line.slice(5).trim() : '';
        if (data.length === 0 || data === '[DONE]') continue;
        const ev = JSON.parse(data) as GenerateBody;
        if (ev.error !== undefined) throw new Error(`serve error: ${JSON.stringify(ev.error).slice(0, 200)}`);
        body = ev;
      }
    }
    const out = Array.isArray(body) ? body[0] : body;
    if (!out?.meta_info) throw new Error('the serve answered without meta_info');
    return fromBody(out);
  }
}

function fromBody(out: GenerateBody): GenerateCallParse {
  const meta = out.meta_info!;
  const rows: Uint16Array[] = [];
  let offset = 0;
  let seen = false;
  for (const item of meta.hidden_states ?? []) {
    const arr = item as unknown[];
    if (!Array.isArray(arr) || arr.length === 0) {
      if (!seen) offset += 1;
      continue;
    }
    seen = true;
    const row = (Array.isArray(arr[0]) ? arr[arr.length - 1] : arr) as number[];
    const bits = new Uint16Array(row.length);
    for (let i = 0; i < row.length; i++) bits[i] = float64ToBf16(row[i]!);
    rows.push(bits);
  }
  const fr = meta.finish_reason ?? null;
  return {
    outputIds: (meta.output_token_logprobs ?? []).map((t) => Number(t[1])),
    rows,
    offset,
    finishType: fr && typeof fr.type === 'string' ? fr.type : null,
    finishMessage: fr && typeof fr.message === 'string' ? fr.message : null,
    cachedTokens: typeof meta.cached_tokens === 'number' ? meta.cached_tokens : 0,
    text: typeof out.text === 'string' ? out.text : null,
  };
}
