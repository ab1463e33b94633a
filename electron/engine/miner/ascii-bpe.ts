// A synchronous byte-level BPE encoder for ASCII text, read from the checkpoint's own tokenizer.json.
// Why: the native tokenizer answers through libuv's thread pool, one round trip on busy cores, and a
// routed request cannot leave for the serve before its ids are ready (docs/performance.md, issue 30,
// rounds 7 and 14). A short ASCII prompt is encoded here on the calling thread instead, and sent at once.
// Its ids are a guess until the native tokenizer agrees: they go into the proof the auditor recomputes,
// so PromptBuilder probes this encoder at load and checks every prompt's ids against the native ones
// before anything reaches the buyer (request-pipeline.ts). It covers only what it can match byte for
// byte (ASCII text, the tokenizer shapes Qwen checkpoints use) and refuses any other tokenizer.json.
//
// Only ASCII tokens and merges are kept: ASCII text maps to the byte characters of bytes 0-127 and can
// never form any other token, and the rest (most of a 248,320-token vocabulary) would cost memory.

/** GPT-2's byte-to-character table: printable bytes map to themselves, the rest to U+0100 onwards. */
function byteChars(): string[] {
  const out: string[] = new Array<string>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    out[b] = String.fromCharCode(printable ? b : 256 + extra++);
  }
  return out;
}
const BYTE_CHARS = byteChars();
/** The byte characters of ASCII bytes (0-127). */
const ASCII_BYTE_CHARS = new Set(BYTE_CHARS.slice(0, 128).map((c) => c.charCodeAt(0)));

/** A token (in byte characters) that ASCII text can produce. */
function asciiToken(token: string): boolean {
  if (token.length === 0) return false;
  for (let i = 0; i < token.length; i++) if (!ASCII_BYTE_CHARS.has(token.charCodeAt(i))) return false;
  return true;
}

// Oniguruma's \s (Unicode White_Space) differs from JavaScript's (which adds U+FEFF, lacks U+0085);
// written out so the split regex means the same in both engines.
const WHITE = '\\t\\n\\v\\f\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

/** The tokenizer's split pattern as a JavaScript regex with Oniguruma's meaning of \s and \S. */
export function splitRegex(pattern: string): RegExp {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const n = pattern[i + 1] ?? '';
      i++;
      if (n === 's') out += inClass ? WHITE : `[${WHITE}]`;
      else if (n === 'S') {
        if (inClass) throw new Error('\\S inside a character class is not supported');
        out += `[^${WHITE}]`;
      } else out += `\\${n}`;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    out += c;
  }
  return new RegExp(out, 'gu');
}

interface TokenizerJson {
  normalizer?: { type?: string } | null;
  pre_tokenizer?: unknown;
  model?: {
    type?: string;
    dropout?: unknown;
    unk_token?: unknown;
    continuing_subword_prefix?: unknown;
    end_of_word_suffix?: unknown;
    fuse_unk?: unknown;
    byte_fallback?: unknown;
    ignore_merges?: unknown;
    vocab?: unknown;
    merges?: unknown;
  };
  added_tokens?: unknown;
}

/** Normalizers that leave ASCII text as it is. */
const ASCII_IDENTITY_NORMALIZERS = new Set(['NFC', 'NFD', 'NFKC', 'NFKD']);
/** Pieces remembered: the same words come back in prompt after prompt. */
const CACHE_LIMIT = 20_000;
/**
 * A longer piece is left to the native tokenizer: merging a piece costs its length squared, and a
 * buyer's run of punctuation is one piece.
 */
export const MAX_PIECE_CHARS = 256;

/**
 * The merges ASCII text can use, as an open-addressed table keyed by the pair of token ids: four
 * 32-bit integers per slot in typed arrays, no string or object per merge (Qwen3's 94,000 ASCII
 * merges take 4 MB, measured after a forced collection).
 */
/** A PairTable's contents, as a worker thread hands them over (the arrays are transferred, not copied). */
export interface PairTableArrays {
  left: Int32Array;
  right: Int32Array;
  value: Int32Array;
}

class PairTable {
  readonly left: Int32Array;
  readonly right: Int32Array;
  /** rank and merged id, interleaved */
  readonly value: Int32Array;
  private readonly mask: number;

  constructor(from: number | PairTableArrays) {
    if (typeof from === 'number') {
      let size = 16;
      while (size < from * 2) size *= 2;
      this.left = new Int32Array(size).fill(-1);
      this.right = new Int32Array(size);
      this.value = new Int32Array(size * 2);
    } else {
      const size = from.left.length;
      if (size < 16 || (size & (size - 1)) !== 0 || from.right.length !== size || from.value.length !== size * 2) throw new Error('a pair table of the wrong shape');
      this.left = from.left;
      this.right = from.right;
      this.value = from.value;
    }
    this.mask = this.left.length - 1;
  }

  private slot(a: number, b: number): number {
    let i = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77)) & this.mask;
    while (this.left[i] !== -1 && (this.left[i] !== a || this.right[i] !== b)) i = (i + 1) & this.mask;
    return i;
  }

  /** Keeps the first (lowest) rank a pair is given, as the native tokenizer does. */
  add(a: number, b: number, rank: number, merged: number): void {
    const i = this.slot(a, b);
    if (this.left[i] !== -1) return;
    this.left[i] = a;
    this.right[i] = b;
    this.value[2 * i] = rank;
    this.value[2 * i + 1] = merged;
  }

  /** The pair's rank, or -1; its merged id is then at `merged()`. */
  rank(a: number, b: number): number {
    const i = this.slot(a, b);
    if (this.left[i] === -1) return -1;
    this.found = this.value[2 * i + 1]!;
    return this.value[2 * i]!;
  }

  /** The merged id of the last pair `rank` found. */
  found = -1;
}

/** What an AsciiBpe is made of, in a form a worker thread can hand over (structured clone plus transferred arrays). */
export interface AsciiBpeParts {
  pattern: string;
  byteIds: Int32Array;
  pairs: PairTableArrays;
  /** The ASCII vocabulary, only when the tokenizer looks a whole piece up before merging. */
  wholeWords: [string, number][] | null;
  added: { text: string; id: number }[];
}

/** The buffers of `p` a worker transfers instead of copying. */
export function transferablesOf(p: AsciiBpeParts): ArrayBuffer[] {
  return [p.byteIds.buffer as ArrayBuffer, p.pairs.left.buffer as ArrayBuffer, p.pairs.right.buffer as ArrayBuffer, p.pairs.value.buffer as ArrayBuffer];
}

/** Reads a parsed tokenizer.json into an AsciiBpe's parts, or says why it cannot follow it exactly. */
export function compileAsciiBpe(json: unknown): AsciiBpeParts | { unsupported: string } {
  if (typeof json !== 'object' || json === null) return { unsupported: 'tokenizer.json is not an object' };
  const t = json as TokenizerJson;
  const norm = t.normalizer;
  if (norm !== null && norm !== undefined && !ASCII_IDENTITY_NORMALIZERS.has(String(norm.type))) return { unsupported: `normalizer ${String(norm.type)}` };
  const pattern = splitPattern(t.pre_tokenizer);
  if (typeof pattern !== 'string') return pattern;
  const m = t.model;
  if (!m || m.type !== 'BPE') return { unsupported: `model ${String(m?.type)}` };
  if (m.dropout != null || m.unk_token != null || m.fuse_unk === true || m.byte_fallback === true) return { unsupported: 'BPE options (dropout, unk, byte fallback)' };
  if ((m.continuing_subword_prefix ?? '') !== '' || (m.end_of_word_suffix ?? '') !== '') return { unsupported: 'BPE subword prefix or suffix' };
  if (typeof m.vocab !== 'object' || m.vocab === null || Array.isArray(m.vocab) || !Array.isArray(m.merges)) return { unsupported: 'BPE vocab or merges missing' };
  // Own-property reads only: a vocabulary naming `__proto__` or `constructor` is data, nothing inherited.
  const vocab = new Map<string, number>();
  for (const [k, v] of Object.entries(m.vocab as Record<string, unknown>)) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return { unsupported: 'a vocab id that is not a whole number' };
    if (asciiToken(k)) vocab.set(k, v);
  }
  const byteIds = new Int32Array(128);
  for (let b = 0; b < 128; b++) {
    const id = vocab.get(BYTE_CHARS[b]!);
    if (id === undefined) return { unsupported: `byte ${b} has no token` };
    byteIds[b] = id;
  }
  const ascii: number[] = [];
  for (const [i, merge] of (m.merges as unknown[]).entries()) {
    const pair = typeof merge === 'string' ? merge.split(' ') : merge;
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') return { unsupported: 'a merge that is not a pair' };
    if (!asciiToken(pair[0]) || !asciiToken(pair[1])) continue;
    const a = vocab.get(pair[0]);
    const b = vocab.get(pair[1]);
    const merged = vocab.get(pair[0] + pair[1]);
    if (a === undefined || b === undefined || merged === undefined) return { unsupported: 'a merge of or into a token not in the vocabulary' };
    ascii.push(a, b, i, merged);
  }
  const merges = new PairTable(ascii.length / 4);
  for (let k = 0; k < ascii.length; k += 4) merges.add(ascii[k]!, ascii[k + 1]!, ascii[k + 2]!, ascii[k + 3]!);
  const added: { text: string; id: number }[] = [];
  for (const a of Array.isArray(t.added_tokens) ? (t.added_tokens as Record<string, unknown>[]) : []) {
    if (typeof a?.content !== 'string' || typeof a.id !== 'number') return { unsupported: 'an added token without content or id' };
    if (a.single_word === true || a.lstrip === true || a.rstrip === true) return { unsupported: `added token ${a.content} strips or matches words` };
    // Matched after normalization, in a second pass: one pass over the raw text is exact only without them.
    if (a.normalized === true) return { unsupported: `added token ${a.content} is matched on normalized text` };
    if (a.content.length === 0) return { unsupported: 'an empty added token' };
    added.push({ text: a.content, id: a.id });
  }
  added.sort((x, y) => y.text.length - x.text.length);
  try {
    splitRegex(pattern);
  } catch (e) {
    return { unsupported: `split pattern: ${(e as Error).message}` };
  }
  return { pattern, byteIds, pairs: { left: merges.left, right: merges.right, value: merges.value }, wholeWords: m.ignore_merges === true ? [...vocab] : null, added };
}

export class AsciiBpe {
  private readonly cache = new Map<string, number[]>();
  /** Char codes an added token starts with: only there is a match looked for. */
  private readonly addedStarts: Set<number>;

  private readonly split: RegExp;
  /** The token id of each ASCII byte. */
  private readonly byteIds: Int32Array;
  private readonly merges: PairTable;
  /** Whole-piece lookups, kept only when the tokenizer says to look a piece up before merging. */
  private readonly wholeWords: Map<string, number> | null;
  /** Added tokens, longest first (a longer one wins where two start at the same place). */
  private readonly added: { text: string; id: number }[];

  private constructor(split: RegExp, byteIds: Int32Array, merges: PairTable, wholeWords: Map<string, number> | null, added: { text: string; id: number }[]) {
    this.split = split;
    this.byteIds = byteIds;
    this.merges = merges;
    this.wholeWords = wholeWords;
    this.added = added;
    this.addedStarts = new Set(added.map((a) => a.text.charCodeAt(0)));
  }

  /**
   * The encoder for this tokenizer.json, or the reason it cannot match the native tokenizer exactly
   * (then the caller keeps the native one for every prompt). On the calling thread: a real vocabulary
   * takes hundreds of milliseconds, so the miner builds it off-thread (ascii-bpe-off-thread.ts).
   */
  static fromJson(json: unknown): AsciiBpe | { unsupported: string } {
    const parts = compileAsciiBpe(json);
    return 'unsupported' in parts ? parts : AsciiBpe.fromParts(parts);
  }

  /** The encoder from compiled parts (compileAsciiBpe's, possibly from another thread), or why not. */
  static fromParts(p: AsciiBpeParts): AsciiBpe | { unsupported: string } {
    let split: RegExp;
    let merges: PairTable;
    try {
      split = splitRegex(p.pattern);
      merges = new PairTable(p.pairs);
    } catch (e) {
      return { unsupported: `compiled parts: ${(e as Error).message}` };
    }
    if (p.byteIds.length !== 128) return { unsupported: 'compiled parts: byte ids of the wrong length' };
    return new AsciiBpe(split, p.byteIds, merges, p.wholeWords ? new Map(p.wholeWords) : null, p.added);
  }

  /** Whether encode() takes this text: ASCII only (where both regex engines and every normalizer agree). */
  static takes(text: string): boolean {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
    return true;
  }

  /**
   * The ids of ASCII `text`, as the native tokenizer gives them without added special tokens; null
   * for text that is not ASCII or has a piece longer than MAX_PIECE_CHARS (the caller asks the native
   * tokenizer instead).
   */
  encode(text: string): number[] | null {
    if (!AsciiBpe.takes(text)) return null;
    const ids: number[] = [];
    let from = 0;
    for (let i = 0; i < text.length;) {
      const hit = this.addedStarts.has(text.charCodeAt(i)) ? this.addedAt(text, i) : null;
      if (!hit) {
        i++;
        continue;
      }
      if (i > from && !this.encodeSegment(text.slice(from, i), ids)) return null;
      ids.push(hit.id);
      i += hit.text.length;
      from = i;
    }
    if (from < text.length && !this.encodeSegment(text.slice(from), ids)) return null;
    return ids;
  }

  private addedAt(text: string, i: number): { text: string; id: number } | null {
    for (const a of this.added) if (text.startsWith(a.text, i)) return a;
    return null;
  }

  private encodeSegment(segment: string, ids: number[]): boolean {
    // Isolated split: each match is a piece, and so is any text between matches.
    let at = 0;
    for (const m of segment.matchAll(this.split)) {
      if (m.index > at && !this.piece(segment.slice(at, m.index), ids)) return false;
      if (m[0].length > 0 && !this.piece(m[0], ids)) return false;
      at = m.index + m[0].length;
    }
    return at >= segment.length || this.piece(segment.slice(at), ids);
  }

  private piece(word: string, ids: number[]): boolean {
    if (word.length > MAX_PIECE_CHARS) return false;
    let got = this.cache.get(word);
    if (!got) {
      got = this.word(word);
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(word, got);
    }
    for (const id of got) ids.push(id);
    return true;
  }

  /** One pre-token (ASCII, so one byte per character) merged by rank, lowest first, leftmost on ties. */
  private word(word: string): number[] {
    const whole = this.wholeWords?.get(Array.from(word, (c) => BYTE_CHARS[c.charCodeAt(0)]!).join(''));
    if (whole !== undefined) return [whole];
    let parts: number[] = [];
    for (let i = 0; i < word.length; i++) parts.push(this.byteIds[word.charCodeAt(i)]!);
    while (parts.length > 1) {
      let best = Infinity;
      let at = -1;
      let into = -1;
      for (let i = 0; i < parts.length - 1; i++) {
        const r = this.merges.rank(parts[i]!, parts[i + 1]!);
        if (r >= 0 && r < best) {
          best = r;
          at = i;
          into = this.merges.found;
        }
      }
      if (at < 0) break;
      const a = parts[at]!;
      const b = parts[at + 1]!;
      // Every occurrence of the pair, left to right, without overlaps: what a rank-ordered queue does.
      const next: number[] = [];
      for (let i = 0; i < parts.length; i++) {
        if (i < parts.length - 1 && parts[i] === a && parts[i + 1] === b) {
          next.push(into);
          i++;
        } else next.push(parts[i]!);
      }
      parts = next;
    }
    return parts;
  }
}

/** The Split pattern of the pre-tokenizer shape Qwen checkpoints use, or why this one is not supported. */
function splitPattern(pre: unknown): string | { unsupported: string } {
  const p = pre as { type?: string; pretokenizers?: unknown[] } | null | undefined;
  if (!p || p.type !== 'Sequence' || !Array.isArray(p.pretokenizers) || p.pretokenizers.length !== 2) return { unsupported: 'pre-tokenizer is not Split + ByteLevel' };
  const [s, b] = p.pretokenizers as Record<string, unknown>[];
  if (s?.type !== 'Split' || s.behavior !== 'Isolated' || s.invert === true) return { unsupported: 'pre-tokenizer split is not isolated' };
  const pattern = (s.pattern as { Regex?: unknown } | undefined)?.Regex;
  if (typeof pattern !== 'string') return { unsupported: 'pre-tokenizer split has no regex' };
  if (b?.type !== 'ByteLevel' || b.add_prefix_space === true || b.use_regex === true) return { unsupported: 'byte-level pre-tokenizer options' };
  return pattern;
}
