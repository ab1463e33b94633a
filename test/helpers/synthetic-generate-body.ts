// Streams a large sglang-style /generate body (what a 4096-token answer with hidden states looks
// like: ~20 bytes of JSON per float32 value) in chunks, without ever building it whole. Used by the
// parser's memory test and the benchmark.
import { float64ToBf16 } from '../../electron/engine/proof/bf16.ts';

export interface SyntheticBodySpec {
  tokens: number;
  hidden: number;
  chunkBytes: number;
  /** SSE framing (`data: ...\n\ndata: [DONE]\n\n`) instead of a plain JSON body. */
  sse?: boolean;
  seed?: number;
  /** Hand out the same buffer for every chunk (the consumer must be done with it before the next). */
  reuseChunks?: boolean;
}

export interface SyntheticBody {
  chunks: () => Generator<Uint8Array>;
  /** Exact size of the body in bytes. */
  bytes: number;
  /** Sum of every kept bf16 value times (its position mod 65521 + 1), mod 2^32: checks the rows. */
  checksum: number;
}

const POOL = 4096;

export function syntheticGenerateBody(spec: SyntheticBodySpec): SyntheticBody {
  const enc = new TextEncoder();
  let s = (spec.seed ?? 1234567) >>> 0;
  const next = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  // Gaussian-ish float32 values, printed as Python prints a float32 widened to float64 (shortest repr).
  const pool: Uint8Array[] = [];
  const poolBits = new Uint16Array(POOL);
  for (let i = 0; i < POOL; i++) {
    const g = (next() / 2 ** 32 + next() / 2 ** 32 + next() / 2 ** 32 - 1.5) * 2;
    const v = Math.fround(g * (i % 97 === 0 ? 30 : 1));
    pool.push(enc.encode(String(v)));
    poolBits[i] = float64ToBf16(v);
  }
  const rowPicks = (row: number): Uint16Array => {
    let r = (row * 2654435761 + 97) >>> 0 || 1;
    const picks = new Uint16Array(spec.hidden);
    for (let j = 0; j < spec.hidden; j++) {
      r ^= r << 13;
      r >>>= 0;
      r ^= r >>> 17;
      r ^= r << 5;
      r >>>= 0;
      picks[j] = r % POOL;
    }
    return picks;
  };
  const n = spec.tokens;
  const logprobs = Array.from({ length: n }, (_, i) => `[-0.${(i * 7919) % 1000},${(i * 104729) % 151000},null]`).join(',');
  const head =
    (spec.sse ? 'data: {"text":"intermediate","meta_info":{"finish_reason":null,"hidden_states":[]}}\n\ndata: ' : '') +
    `{"text":"${'word '.repeat(n)}","output_ids":[],"meta_info":{"id":"synthetic","finish_reason":{"type":"length","length":${n}},` +
    `"prompt_tokens":13000,"weight_version":"default","total_retractions":0,"output_token_logprobs":[${logprobs}],"hidden_states":[`;
  const tail = `],"completion_tokens":${n},"cached_tokens":0,"e2e_latency":12.5}}` + (spec.sse ? '\n\ndata: [DONE]\n\n' : '');
  // Sizes and checksum in one pass over the picks (cheap next to the bytes themselves).
  let bytes = head.length + tail.length;
  let checksum = 0;
  let pos = 0;
  for (let row = 0; row < n; row++) {
    const picks = rowPicks(row);
    bytes += row === 0 ? 4 : 3; // [[...]] for the trimmed prefill row, ,[...] after
    for (let j = 0; j < picks.length; j++) {
      bytes += pool[picks[j]!]!.length + (j > 0 ? 1 : 0);
      checksum = (checksum + poolBits[picks[j]!]! * ((pos++ % 65521) + 1)) >>> 0;
    }
  }
  const maxNumber = Math.max(...pool.map((p) => p.length));
  function* chunks(): Generator<Uint8Array> {
    let buf = new Uint8Array(spec.chunkBytes);
    let len = 0;
    const row = new Uint8Array(spec.hidden * (maxNumber + 1) + 8);
    function* put(b: Uint8Array): Generator<Uint8Array> {
      let off = 0;
      while (off < b.length) {
        const take = Math.min(b.length - off, buf.length - len);
        buf.set(b.subarray(off, off + take), len);
        len += take;
        off += take;
        if (len === buf.length) {
          yield buf;
          if (!spec.reuseChunks) buf = new Uint8Array(spec.chunkBytes);
          len = 0;
        }
      }
    }
    yield* put(enc.encode(head));
    for (let r = 0; r < n; r++) {
      const picks = rowPicks(r);
      let w = 0;
      if (r > 0) row[w++] = 44; // ,
      row[w++] = 91; // [
      if (r === 0) row[w++] = 91;
      for (let j = 0; j < picks.length; j++) {
        if (j > 0) row[w++] = 44;
        const num = pool[picks[j]!]!;
        for (let k = 0; k < num.length; k++) row[w++] = num[k]!;
      }
      row[w++] = 93; // ]
      if (r === 0) row[w++] = 93;
      yield* put(row.subarray(0, w));
    }
    yield* put(enc.encode(tail));
    if (len > 0) yield buf.subarray(0, len);
  }
  return { chunks, bytes, checksum };
}

/** The checksum syntheticGenerateBody promises, computed over parsed rows. */
export function rowsChecksum(data: Uint16Array): number {
  let c = 0;
  for (let i = 0; i < data.length; i++) c = (c + data[i]! * ((i % 65521) + 1)) >>> 0;
  return c;
}
