// One /generate response JSON document (a plain body, or one SSE event), walked byte by byte.
//
// Only the parts the miner needs are parsed: hidden-state rows go to a HiddenRowSink, the small
// values (text, finish_reason, counters, token ids) are captured and JSON.parse'd, and everything
// else is skipped by a bracket counter. An event already known to be unfinished (finish_reason
// null before its bulk) is not the answer, so its hidden states and token ids are skipped unparsed.
import { GenerateBodyError } from './body-error.ts';
import { HiddenRowSink } from './hidden-rows.ts';
import { parseJsonBytes, RawValue } from './raw-value.ts';

export interface FinishReason {
  /** stop | length | abort (sglang's FINISH_* to_json). */
  type: string;
  matched?: unknown;
  length?: number;
  message?: string;
}

// Document states.
const ST_VALUE = 0,
  ST_OBJ_FIRST = 1,
  ST_OBJ_KEY = 2,
  ST_KEY = 3,
  ST_COLON = 4,
  ST_AFTER = 5,
  ST_ARR_FIRST = 6,
  ST_RAW = 7,
  ST_ROW = 8,
  ST_HELEM_FIRST = 9,
  ST_BLOCK_ROW = 10,
  ST_BLOCK_AFTER = 11,
  ST_BLOCK_NEXT = 12,
  ST_END = 13;
// What the next value is to the proof.
const V_ROOT = 0,
  V_BATCH_ITEM0 = 1,
  V_SKIP = 2,
  V_META = 3,
  V_LOGPROBS = 4,
  V_LP_ENTRY = 5,
  V_HIDDEN = 6,
  V_HELEM = 7,
  V_TEXT = 8,
  V_FINISH = 9,
  V_PROMPT = 10,
  V_COMPLETION = 11,
  V_CACHED = 12,
  V_ERROR = 13,
  V_TOKEN_ID = 14;
// Containers the parser walks into (F_ROOT and F_META are objects, the rest arrays).
const F_BATCH = 0,
  F_ROOT = 1,
  F_META = 2,
  F_LOGPROBS = 3,
  F_LP_ENTRY = 4,
  F_HIDDEN = 5;
// finish_reason of the current document.
const FIN_UNSEEN = 0,
  FIN_NULL = 1,
  FIN_SET = 2;

const utf8 = new TextDecoder();
export const isWs = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

export function fail(what: string): never {
  throw new GenerateBodyError(`malformed /generate body: ${what}`);
}

export class GenerateDocument {
  readonly rows = new HiddenRowSink();
  finishReason: FinishReason | null = null;
  /**
   * meta_info.output_token_logprobs[i][1] of the current document. Held in a reused buffer: in a
   * stream every event repeats the whole list so far (4096 events of up to 4096 ids), and a fresh
   * array per event was most of the worker's garbage.
   */
  private ids = new Float64Array(256);
  private idCount = 0;
  promptTokens: number | null = null;
  completionTokens: number | null = null;
  cachedTokens: number | null = null;
  hiddenStatesPresent = false;
  /**
   * Text read per document (onText then hears each one), or only the last document's, kept as
   * bytes and decoded when asked (no listener: a stream repeats the whole text so far in every
   * event, and decoding each was thousands of strings of garbage per body).
   */
  private readonly textPerDocument: boolean;
  private textValue = '';
  private textBytes: Uint8Array | null = null;
  private textLength = -1;
  /** Sticky across documents: any error event fails the answer. */
  serveError: string | null = null;
  private readonly onText: (text: string) => void;
  private readonly raw: RawValue;
  private st = ST_END;
  private role = V_ROOT;
  private rawRole = V_SKIP;
  private readonly frames: number[] = [];
  private readonly counts: number[] = [];
  private key = new Uint8Array(64);
  private keyLen = 0;
  private keyEscaped = false;
  private keyPrevBackslash = false;
  private finishState = FIN_UNSEEN;

  /** onText gets each document's cumulative text as soon as it is read (unless textPerDocument is false). */
  constructor(onText: (text: string) => void, maxCaptureBytes: number, textPerDocument = true) {
    this.textPerDocument = textPerDocument;
    this.onText = onText;
    this.raw = new RawValue(maxCaptureBytes);
  }

  begin(): void {
    this.st = ST_VALUE;
    this.role = V_ROOT;
    this.frames.length = 0;
    this.counts.length = 0;
    this.rows.reset();
    this.finishState = FIN_UNSEEN;
    this.finishReason = null;
    this.idCount = 0;
    this.promptTokens = null;
    this.completionTokens = null;
    this.cachedTokens = null;
    this.hiddenStatesPresent = false;
    this.textValue = '';
    this.textLength = -1;
  }

  /** True once the document's root value is closed. */
  get complete(): boolean {
    return this.st === ST_END && this.frames.length === 0;
  }

  feed(buf: Uint8Array, pos: number, end: number): void {
    while (pos < end) {
      const c = buf[pos]!;
      switch (this.st) {
        case ST_VALUE:
          if (isWs(c)) pos++;
          else pos = this.startValue(c, pos);
          break;
        case ST_OBJ_FIRST:
        case ST_OBJ_KEY:
          if (isWs(c)) pos++;
          else if (c === 34) {
            this.keyLen = 0;
            this.keyEscaped = false;
            this.keyPrevBackslash = false;
            this.st = ST_KEY;
            pos++;
          } else if (c === 125 && this.st === ST_OBJ_FIRST) {
            pos++;
            this.closeFrame();
          } else fail(`expected a key, got '${String.fromCharCode(c)}'`);
          break;
        case ST_KEY:
          pos = this.readKey(buf, pos, end);
          break;
        case ST_COLON:
          if (isWs(c)) pos++;
          else if (c === 58) {
            pos++;
            this.role = this.roleForKey();
            this.st = ST_VALUE;
          } else fail("expected ':' after a key");
          break;
        case ST_AFTER:
          if (isWs(c)) pos++;
          else pos = this.afterValue(c, pos);
          break;
        case ST_ARR_FIRST:
          if (isWs(c)) pos++;
          else if (c === 93) {
            pos++;
            this.closeFrame();
          } else {
            this.role = this.roleForIndex();
            this.st = ST_VALUE;
          }
          break;
        case ST_RAW: {
          const r = this.raw.feed(buf, pos, end);
          if (r < 0) pos = end;
          else {
            pos = r;
            this.st = ST_AFTER;
            this.rawDone();
          }
          break;
        }
        case ST_ROW:
          pos = this.rows.parseRow(buf, pos, end, false);
          if (this.rows.rowDone) this.st = ST_AFTER;
          break;
        case ST_HELEM_FIRST:
          if (isWs(c)) pos++;
          else if (c === 93) {
            pos++;
            this.rows.emptyElement();
            this.st = ST_AFTER;
          } else if (c === 91) {
            pos++;
            this.rows.beginBlockRow();
            this.st = ST_BLOCK_ROW;
          } else {
            this.rows.beginRow();
            this.st = ST_ROW;
          }
          break;
        case ST_BLOCK_ROW: {
          const r = this.rows.copyBlockRow(buf, pos, end);
          if (r < 0) pos = end;
          else {
            pos = r;
            this.st = ST_BLOCK_AFTER;
          }
          break;
        }
        case ST_BLOCK_AFTER:
          if (isWs(c)) pos++;
          else if (c === 44) {
            pos++;
            this.st = ST_BLOCK_NEXT;
          } else if (c === 93) {
            pos++;
            this.rows.finishBlock();
            this.st = ST_AFTER;
          } else fail("expected ',' or ']' between prefill rows");
          break;
        case ST_BLOCK_NEXT:
          if (isWs(c)) pos++;
          else if (c === 91) {
            pos++;
            this.rows.beginBlockRow();
            this.st = ST_BLOCK_ROW;
          } else fail('a prefill block mixes rows and numbers');
          break;
        case ST_END:
          if (isWs(c)) pos++;
          else fail('unexpected data after the JSON body');
          break;
      }
    }
  }

  private startValue(c: number, pos: number): number {
    switch (this.role) {
      case V_ROOT:
        if (c === 123) return this.open(F_ROOT, pos);
        if (c === 91) return this.open(F_BATCH, pos);
        return fail('the body is not a JSON object');
      case V_BATCH_ITEM0:
        if (c === 123) return this.open(F_ROOT, pos);
        return fail('the batch array does not hold an object');
      case V_META:
        if (c === 123) return this.open(F_META, pos);
        break;
      case V_LOGPROBS:
        if (c === 91) {
          this.idCount = 0;
          return this.open(F_LOGPROBS, pos);
        }
        break;
      case V_LP_ENTRY:
        if (c === 91) return this.open(F_LP_ENTRY, pos);
        return fail('an output_token_logprobs entry is not a list');
      case V_HIDDEN:
        if (c === 91) {
          this.rows.reset();
          this.hiddenStatesPresent = true;
          return this.open(F_HIDDEN, pos);
        }
        break;
      case V_HELEM:
        if (c === 91) {
          this.st = ST_HELEM_FIRST;
          return pos + 1;
        }
        return fail('a hidden_states element is not a list');
      default:
        this.rawRole = this.role;
        this.raw.begin(true);
        this.st = ST_RAW;
        return pos;
    }
    this.rawRole = V_SKIP;
    this.raw.begin(false);
    this.st = ST_RAW;
    return pos;
  }

  private open(kind: number, pos: number): number {
    if (this.frames.length >= 16) fail('nesting too deep');
    this.frames.push(kind);
    this.counts.push(0);
    this.st = kind === F_ROOT || kind === F_META ? ST_OBJ_FIRST : ST_ARR_FIRST;
    return pos + 1;
  }

  private closeFrame(): void {
    const kind = this.frames.pop();
    const count = this.counts.pop() ?? 0;
    if (kind === F_LP_ENTRY && count < 1) fail('an output_token_logprobs entry has no token id');
    this.st = this.frames.length === 0 ? ST_END : ST_AFTER;
  }

  private afterValue(c: number, pos: number): number {
    const kind = this.frames[this.frames.length - 1] ?? -1;
    const isObject = kind === F_ROOT || kind === F_META;
    if (c === 44) {
      if (isObject) this.st = ST_OBJ_KEY;
      else {
        this.counts[this.counts.length - 1]!++;
        this.role = this.roleForIndex();
        this.st = ST_VALUE;
      }
      return pos + 1;
    }
    if ((c === 125 && isObject) || (c === 93 && !isObject)) {
      this.closeFrame();
      return pos + 1;
    }
    return fail(`expected ',' or '${isObject ? '}' : ']'}', got '${String.fromCharCode(c)}'`);
  }

  private readKey(buf: Uint8Array, pos: number, end: number): number {
    while (pos < end) {
      const c = buf[pos++]!;
      if (this.keyPrevBackslash) this.keyPrevBackslash = false;
      else if (c === 92) {
        this.keyPrevBackslash = true;
        this.keyEscaped = true;
      } else if (c === 34) {
        this.st = ST_COLON;
        return pos;
      }
      if (this.keyLen < this.key.length) this.key[this.keyLen] = c;
      this.keyLen++;
    }
    return pos;
  }

  private keyName(): string {
    if (this.keyLen > this.key.length) return '';
    const raw = utf8.decode(this.key.subarray(0, this.keyLen));
    if (!this.keyEscaped) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return fail('a key has an invalid escape');
    }
  }

  private roleForKey(): number {
    const kind = this.frames[this.frames.length - 1] ?? -1;
    const name = this.keyName();
    if (kind === F_ROOT) {
      if (name === 'text') return V_TEXT;
      if (name === 'meta_info') return V_META;
      if (name === 'error') return V_ERROR;
      return V_SKIP;
    }
    switch (name) {
      case 'finish_reason':
        return V_FINISH;
      case 'prompt_tokens':
        return V_PROMPT;
      case 'completion_tokens':
        return V_COMPLETION;
      case 'cached_tokens':
        return V_CACHED;
      // An event already known to be unfinished is not the answer: skip its bulk unparsed.
      case 'output_token_logprobs':
        return this.finishState === FIN_NULL ? V_SKIP : V_LOGPROBS;
      case 'hidden_states':
        return this.finishState === FIN_NULL ? V_SKIP : V_HIDDEN;
      default:
        return V_SKIP;
    }
  }

  private roleForIndex(): number {
    const kind = this.frames[this.frames.length - 1] ?? -1;
    const index = this.counts[this.counts.length - 1]!;
    switch (kind) {
      case F_BATCH:
        return index === 0 ? V_BATCH_ITEM0 : V_SKIP;
      case F_LOGPROBS:
        return V_LP_ENTRY;
      case F_LP_ENTRY:
        return index === 1 ? V_TOKEN_ID : V_SKIP;
      case F_HIDDEN:
        return V_HELEM;
      default:
        return V_SKIP;
    }
  }

  /** The current document's text (decoded here, once, when only the last one is kept). */
  get text(): string {
    if (this.textLength >= 0) {
      const v = parseJsonBytes(this.textBytes!.subarray(0, this.textLength), 'text');
      if (typeof v !== 'string') fail('text is not a string');
      this.textValue = v;
      this.textLength = -1;
    }
    return this.textValue;
  }

  get tokenCount(): number {
    return this.idCount;
  }

  /** The current document's token ids, as a fresh array (read once, at the end of the body). */
  get tokenIds(): number[] {
    return Array.from(this.ids.subarray(0, this.idCount));
  }

  private pushId(v: number): void {
    if (this.idCount === this.ids.length) {
      const grown = new Float64Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.idCount++] = v;
  }

  private rawDone(): void {
    const role = this.rawRole;
    if (role === V_SKIP) return;
    if (role === V_TOKEN_ID) {
      const d = this.raw.digits();
      if (d >= 0) return this.pushId(d);
    }
    if (role === V_TEXT && !this.textPerDocument) {
      const bytes = this.raw.captured();
      if (this.textBytes === null || this.textBytes.length < bytes.length) this.textBytes = new Uint8Array(Math.max(bytes.length, 2 * (this.textBytes?.length ?? 128)));
      this.textBytes.set(bytes);
      this.textLength = bytes.length;
      return;
    }
    const v = this.raw.parse(NAMES[role] ?? 'a value');
    switch (role) {
      case V_TEXT:
        if (typeof v !== 'string') fail('text is not a string');
        this.textValue = v;
        this.textLength = -1;
        this.onText(v);
        return;
      case V_FINISH:
        if (v === null) this.finishState = FIN_NULL;
        else {
          this.finishState = FIN_SET;
          const o = typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { type: v };
          this.finishReason = { ...o, type: String(o['type']) } as FinishReason;
        }
        return;
      case V_TOKEN_ID:
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail('a token id in output_token_logprobs is not an integer');
        this.pushId(v);
        return;
      case V_ERROR: {
        const msg = typeof v === 'object' && v !== null && 'message' in v ? (v as { message: unknown }).message : v;
        this.serveError = typeof msg === 'string' ? msg : JSON.stringify(msg);
        return;
      }
      default: {
        const n = typeof v === 'number' ? v : null;
        if (role === V_PROMPT) this.promptTokens = n;
        else if (role === V_COMPLETION) this.completionTokens = n;
        else this.cachedTokens = n;
      }
    }
  }
}

const NAMES: Record<number, string> = {
  [V_TEXT]: 'text',
  [V_FINISH]: 'finish_reason',
  [V_PROMPT]: 'prompt_tokens',
  [V_COMPLETION]: 'completion_tokens',
  [V_CACHED]: 'cached_tokens',
  [V_ERROR]: 'error',
  [V_TOKEN_ID]: 'a token id',
};
