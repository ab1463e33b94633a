// TEST DOUBLE (fake sglang): a tiny deterministic causal "language model". Seeded weights, a
// per-dimension linear recurrence over token embeddings (cheap: O(hidden) per token, like a
// GDN/mamba layer's rolling state) and two pointwise mixing layers give each position a final
// hidden row; greedy decoding picks the argmax of a projection of that row onto the vocabulary,
// steered by a small script (optional <think> block, sentences, <|im_end|>) read off the prefix.
// Everything is a function of the token prefix only, so a prefill row at position i equals
// the decode row at position i, and chunked continuation reproduces one long call exactly.
// The gateway double imports this module to recompute activations when auditing proofs.
import { mix32, roundRowToBf16, unit } from './numerics.ts';
import type { VocabPlan } from './vocab-plan.ts';

export interface ModelOptions {
  hiddenSize: number;
  vocab: VocabPlan;
  /** Weight seed; every honest serve of one checkpoint uses the same one. */
  seed?: number;
}

export const DEFAULT_SEED = 53;

interface Weights {
  decay: Float32Array;
  inGain: Float32Array;
  freq: Float32Array;
  a: Float32Array[];
  b: Float32Array[];
  c: Float32Array[];
  norm: Float32Array;
  perm: Int32Array;
}

type ThinkPhase = 'none' | 'open' | 'closed';

/** Everything the model carries from one position to the next. Cheap to copy. */
export interface ModelState {
  pos: number;
  recurrent: Float32Array;
  lastToken: number;
  prefixHash: number;
  turnHash: number;
  sinceTurn: number;
  phase: ThinkPhase;
  inPhase: number;
  sinceStop: number;
}

export interface NextToken {
  token: number;
  logprob: number;
}

export interface DecodeRules {
  ignoreEos?: boolean;
  stopTokenIds?: readonly number[];
}

const LAYERS = 2;

export class FakeModel {
  readonly hiddenSize: number;
  readonly vocab: VocabPlan;
  readonly seed: number;
  private readonly w: Weights;
  private readonly embeddings = new Map<number, Float32Array>();
  private readonly wordProj = new Map<number, Float32Array>();

  constructor(opts: ModelOptions) {
    this.hiddenSize = opts.hiddenSize;
    this.vocab = opts.vocab;
    this.seed = opts.seed ?? DEFAULT_SEED;
    this.w = this.makeWeights();
  }

  private makeWeights(): Weights {
    const h = this.hiddenSize;
    const s = this.seed;
    const vec = (tag: number, f: (u: number) => number): Float32Array => {
      const v = new Float32Array(h);
      for (let j = 0; j < h; j++) v[j] = f(unit(s, tag, j));
      return v;
    };
    // A stride coprime with h walks every index once: a fixed "mixing" permutation.
    let stride = 7;
    while (gcd(stride, h) !== 1) stride += 2;
    const perm = new Int32Array(h);
    for (let j = 0; j < h; j++) perm[j] = (j * stride + 3) % h;
    return {
      decay: vec(1, (u) => 0.79 + 0.19 * u),
      inGain: vec(2, (u) => 0.6 + 0.4 * u),
      freq: vec(3, (u) => 0.001 + 0.05 * Math.abs(u)),
      a: Array.from({ length: LAYERS }, (_, l) => vec(10 + l, (u) => 1.2 * u)),
      b: Array.from({ length: LAYERS }, (_, l) => vec(20 + l, (u) => 0.8 * u)),
      c: Array.from({ length: LAYERS }, (_, l) => vec(30 + l, (u) => 0.3 * u)),
      norm: vec(4, (u) => 1 + 0.5 * u),
      perm,
    };
  }

  private embedding(token: number): Float32Array {
    let e = this.embeddings.get(token);
    if (!e) {
      e = new Float32Array(this.hiddenSize);
      for (let j = 0; j < this.hiddenSize; j++) e[j] = unit(this.seed, 0x1000 + token, j) + unit(this.seed ^ 0x55, token, j);
      this.embeddings.set(token, e);
    }
    return e;
  }

  initialState(): ModelState {
    return {
      pos: -1,
      recurrent: new Float32Array(this.hiddenSize),
      lastToken: -1,
      prefixHash: mix32(this.seed, 0xabc),
      turnHash: mix32(this.seed, 0xdef),
      sinceTurn: 0,
      phase: 'none',
      inPhase: 0,
      sinceStop: 0,
    };
  }

  cloneState(st: ModelState): ModelState {
    return { ...st, recurrent: st.recurrent.slice() };
  }

  /** Consume one token: the state then describes position st.pos (this token's position). */
  advance(st: ModelState, token: number): void {
    const { decay, inGain } = this.w;
    const e = this.embedding(token);
    const r = st.recurrent;
    for (let j = 0; j < r.length; j++) {
      const d = decay[j]!;
      r[j] = d * r[j]! + (1 - d) * inGain[j]! * e[j]!;
    }
    st.pos += 1;
    st.lastToken = token;
    st.prefixHash = mix32(st.prefixHash, token, st.pos);
    const v = this.vocab;
    if (token === v.imStart) {
      st.turnHash = st.prefixHash;
      st.sinceTurn = 0;
      st.phase = 'none';
      st.inPhase = 0;
      st.sinceStop = 0;
      return;
    }
    st.sinceTurn += 1;
    if (token === v.thinkOpen) {
      st.phase = 'open';
      st.inPhase = 0;
    } else if (token === v.thinkClose) {
      st.phase = 'closed';
      st.inPhase = 0;
    } else {
      st.inPhase += 1;
    }
    st.sinceStop = token === v.period || token === v.paragraph ? 0 : st.sinceStop + 1;
  }

  /** The final hidden row at the state's position (bf16-exact values). */
  hiddenRow(st: ModelState, out = new Float32Array(this.hiddenSize)): Float32Array {
    const { freq, a, b, c, norm, perm } = this.w;
    const e = this.embedding(st.lastToken);
    const h = this.hiddenSize;
    for (let j = 0; j < h; j++) out[j] = st.recurrent[j]! + 0.5 * e[j]! + 0.1 * Math.sin(st.pos * freq[j]!);
    for (let l = 0; l < LAYERS; l++) {
      const al = a[l]!;
      const bl = b[l]!;
      const cl = c[l]!;
      const prev = out.slice();
      for (let j = 0; j < h; j++) {
        const z = al[j]! * prev[j]! + bl[j]! * prev[perm[j]!]! + cl[j]!;
        out[j] = prev[j]! + z / (1 + Math.abs(z));
      }
    }
    let ss = 0;
    for (let j = 0; j < h; j++) ss += out[j]! * out[j]!;
    const inv = 1 / Math.sqrt(ss / h + 1e-6);
    for (let j = 0; j < h; j++) out[j] = out[j]! * inv * norm[j]!;
    return roundRowToBf16(out);
  }

  /** Greedy choice for the token after the state's position, given that position's row. */
  nextToken(st: ModelState, row: Float32Array, rules: DecodeRules = {}): NextToken {
    const v = this.vocab;
    const t = st.turnHash;
    const forced = (token: number): NextToken => ({ token, logprob: Math.fround(-0.000335) });
    const canStop = !rules.ignoreEos;
    if (st.phase === 'none' && st.sinceTurn <= 2 && t % 5 < 2 && st.lastToken !== v.imStart) return forced(v.thinkOpen);
    if (st.phase === 'open' && st.inPhase >= 6 + ((t >>> 8) % 40)) return forced(v.thinkClose);
    if (st.phase === 'closed' && st.inPhase === 0) return forced(v.paragraph);
    if (canStop && st.phase !== 'open') {
      const budget = 12 + ((t >>> 16) % 160);
      const over = st.phase === 'closed' ? st.inPhase >= budget : st.sinceTurn >= 6 && st.prefixHash % budget === 0;
      if (over) return forced(v.imEnd);
    }
    if (st.sinceStop >= 5 + ((st.prefixHash >>> 4) % 10)) {
      return forced(st.sinceStop % 3 === 0 && st.phase === 'closed' ? v.paragraph : v.period);
    }
    return this.argmaxWord(row, st);
  }

  private argmaxWord(row: Float32Array, st: ModelState): NextToken {
    const exclude = st.lastToken;
    const words = this.vocab.words;
    const scores = new Float64Array(words.length);
    let best = -1;
    let bestScore = -Infinity;
    const scale = 4 / Math.sqrt(this.hiddenSize);
    for (let i = 0; i < words.length; i++) {
      const id = words[i]!;
      if (id === exclude) {
        scores[i] = -Infinity;
        continue;
      }
      const p = this.projection(id);
      let dot = 0;
      for (let j = 0; j < p.length; j++) dot += p[j]! * row[j]!;
      // A prefix-keyed bonus stands in for attention: it keeps greedy decoding out of loops.
      scores[i] = dot * scale + 1.5 * unit(st.prefixHash, id);
      if (scores[i]! > bestScore) {
        bestScore = scores[i]!;
        best = i;
      }
    }
    let z = 0;
    for (let i = 0; i < scores.length; i++) z += Math.exp(scores[i]! - bestScore);
    return { token: words[best]!, logprob: Math.fround(-Math.log(z)) };
  }

  private projection(token: number): Float32Array {
    let p = this.wordProj.get(token);
    if (!p) {
      p = new Float32Array(this.hiddenSize);
      for (let j = 0; j < p.length; j++) p[j] = unit(this.seed ^ 0x77, token, j);
      this.wordProj.set(token, p);
    }
    return p;
  }
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

const models = new WeakMap<VocabPlan, Map<string, FakeModel>>();

/** One model per (vocab, hidden size, seed): weights and embedding caches are shared. */
export function modelFor(opts: ModelOptions): FakeModel {
  let byKey = models.get(opts.vocab);
  if (!byKey) models.set(opts.vocab, (byKey = new Map()));
  const key = `${opts.hiddenSize}:${opts.seed ?? DEFAULT_SEED}`;
  let m = byKey.get(key);
  if (!m) byKey.set(key, (m = new FakeModel(opts)));
  return m;
}

/** Final hidden rows for positions fromPosition..tokenIds.length-1 (row i samples token i+1). */
export function computeHiddenStates(tokenIds: readonly number[], opts: ModelOptions, fromPosition = 0): Float32Array[] {
  const m = modelFor(opts);
  const st = m.initialState();
  const rows: Float32Array[] = [];
  for (let i = 0; i < tokenIds.length; i++) {
    m.advance(st, tokenIds[i]!);
    if (i >= fromPosition) rows.push(m.hiddenRow(st));
  }
  return rows;
}

export interface Generation {
  outputIds: number[];
  logprobs: number[];
  /** One row per output token: row k is the hidden state that sampled output token k. */
  rows: Float32Array[];
  finish: 'stop' | 'length';
}

/** Greedy decoding as the serve does it, without the HTTP around it. */
export function greedyGenerate(promptIds: readonly number[], maxNewTokens: number, opts: ModelOptions, rules: DecodeRules = {}): Generation {
  if (promptIds.length === 0) throw new Error('greedyGenerate needs at least one prompt token');
  const m = modelFor(opts);
  const st = m.initialState();
  for (const t of promptIds) m.advance(st, t);
  const out: Generation = { outputIds: [], logprobs: [], rows: [], finish: 'length' };
  const stops = new Set([m.vocab.imEnd, m.vocab.endOfText, ...(rules.stopTokenIds ?? [])]);
  while (out.outputIds.length < maxNewTokens) {
    const row = m.hiddenRow(st);
    const next = m.nextToken(st, row, rules);
    out.rows.push(row);
    out.outputIds.push(next.token);
    out.logprobs.push(next.logprob);
    if (!rules.ignoreEos && stops.has(next.token)) {
      out.finish = 'stop';
      break;
    }
    m.advance(st, next.token);
  }
  return out;
}
