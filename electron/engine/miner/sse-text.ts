// Reads the cumulative `text` (and any `error`) out of a streamed `/generate` body on the
// thread that answers the gateway. Every event of a stream can carry megabytes of hidden states,
// and this thread must stay free for every other buyer's stream, so the bytes are walked once:
// sglang writes `{"text": "...", "output_ids": [...], "meta_info": ...`, and as soon as that head
// is read the event is reported and the rest of the line is skipped with a native newline search
// (never copied, decoded or parsed here; the full body goes to the proof parser in a worker).
// `text` and `output_ids` are cumulative: the part equal to the previous event's (a native byte
// compare) is not decoded or counted again, only the new bytes are. Lines of any other shape
// (errors, `[DONE]`, another key order) fall back to the old reading of a bounded prefix.

export interface SseTextEvent {
  /** Cumulative output text so far, or null when this event did not expose it within the prefix. */
  text: string | null;
  /** Output tokens the event carries (cumulative `output_ids`), or null when not readable within the prefix. */
  tokens: number | null;
  error: string | null;
  done: boolean;
}

const NL = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const DATA = Buffer.from('data:');
const TEXT_KEY = Buffer.from('"text"');
const IDS_KEY = Buffer.from('"output_ids"');

// Where the head reader is within the current line (numbers: erasable TypeScript has no enums).
const S_DATA = 0; // matching `data:`
const S_OPEN = 1; // whitespace, then `{`
const S_TEXT_KEY = 2; // whitespace, then `"text"`
const S_TEXT_COLON = 3; // whitespace, `:`, whitespace, `"`
const S_TEXT = 4; // inside the text string
const S_AFTER_TEXT = 5; // whitespace, then `,`
const S_IDS_KEY = 6; // whitespace, then `"output_ids"`
const S_IDS_COLON = 7; // whitespace, `:`, whitespace, `[`
const S_IDS = 8; // inside the id list
const S_REPORTED = 9; // head read and reported: skip to the end of the line
const S_NOT_DATA = 10; // not a data line: skip
const S_OTHER = 11; // another shape: keep a bounded prefix for the fallback at the line's end

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d;

export class SseTextScanner {
  private readonly limit: number;
  private readonly onEvent: (e: SseTextEvent) => void;
  /** The current line's first bytes, once its head spans chunks (bounded by the prefix limit). */
  private head: Buffer = Buffer.allocUnsafe(0);
  private headLen = 0;
  private lineLen = 0;
  private state = S_DATA;
  /** Next byte of the line the head reader looks at, and the start of the value it is inside. */
  private pos = 0;
  private mark = 0;
  private textStart = 0;
  private textEnd = 0;
  private text: string | null = null;
  /** The previous event's text and id list as raw JSON bytes, with what they decoded to. */
  private prevText = new Grow();
  private prevTextValue = '';
  private prevIds = new Grow();
  private prevCount = 0;

  constructor(onEvent: (e: SseTextEvent) => void, prefixLimit = 256 * 1024) {
    this.onEvent = onEvent;
    this.limit = prefixLimit;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NL, start);
      const end = nl < 0 ? chunk.length : nl;
      this.take(chunk, start, end);
      if (nl < 0) return;
      this.endLine();
      start = nl + 1;
    }
  }

  end(): void {
    if (this.lineLen > 0) this.endLine();
  }

  /** Bytes [start, end) of the current line. */
  private take(chunk: Buffer, start: number, end: number): void {
    const n = end - start;
    if (n <= 0) return;
    const before = this.lineLen;
    this.lineLen += n;
    if (this.state === S_REPORTED || this.state === S_NOT_DATA) return;
    if (this.headLen === 0 && before === 0 && this.state !== S_OTHER) {
      // The line starts in this chunk: read its head in place, copying nothing if it is all here.
      const view = chunk.subarray(start, end);
      this.advance(view, view.length);
      if (this.state === S_REPORTED || this.state === S_NOT_DATA) return;
      this.keep(view, this.limit);
      return;
    }
    const room = this.limit - this.headLen;
    if (room <= 0) return;
    this.keep(chunk.subarray(start, start + Math.min(room, n)), room);
    if (this.state !== S_OTHER) this.advance(this.head, this.headLen);
  }

  /** Appends to the head (a copy: the socket may reuse its buffer), up to `room` bytes. */
  private keep(part: Buffer, room: number): void {
    const n = Math.min(part.length, room);
    if (n <= 0) return;
    if (this.headLen + n > this.head.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.limit, Math.max(this.headLen + n, this.head.length * 2, 256)));
      this.head.copy(grown, 0, 0, this.headLen);
      this.head = grown;
    }
    part.copy(this.head, this.headLen, 0, n);
    this.headLen += n;
  }

  /** Moves the head reader over buf[pos, len): a state machine, so a head split anywhere resumes. */
  private advance(buf: Buffer, len: number): void {
    let p = this.pos;
    while (p < len) {
      const c = buf[p]!;
      switch (this.state) {
        case S_DATA:
          if (c !== DATA[p]) return this.other(S_NOT_DATA);
          p++;
          if (p === DATA.length) this.state = S_OPEN;
          break;
        case S_OPEN:
          if (c === 0x20 || c === 0x09) p++;
          else if (c === 0x7b) {
            p++;
            this.state = S_TEXT_KEY;
            this.mark = -1;
          } else return this.other(S_OTHER);
          break;
        case S_TEXT_KEY:
        case S_IDS_KEY: {
          const key = this.state === S_TEXT_KEY ? TEXT_KEY : IDS_KEY;
          if (this.mark < 0) {
            if (isSpace(c)) {
              p++;
              break;
            }
            this.mark = p;
          }
          const i = p - this.mark;
          if (c !== key[i]) return this.other(S_OTHER);
          p++;
          if (i + 1 === key.length) {
            this.state = this.state === S_TEXT_KEY ? S_TEXT_COLON : S_IDS_COLON;
            this.mark = 0;
          }
          break;
        }
        case S_TEXT_COLON:
        case S_IDS_COLON: {
          // mark: 0 before the colon, 1 after it.
          const opener = this.state === S_TEXT_COLON ? QUOTE : 0x5b;
          if (isSpace(c)) p++;
          else if (this.mark === 0 && c === 0x3a) {
            this.mark = 1;
            p++;
          } else if (this.mark === 1 && c === opener) {
            p++;
            if (this.state === S_TEXT_COLON) {
              this.state = S_TEXT;
              this.textStart = p;
            } else {
              this.state = S_IDS;
              this.mark = p;
            }
          } else return this.other(S_OTHER);
          break;
        }
        case S_TEXT: {
          // The closing quote: the next quote not escaped by an odd run of backslashes.
          const q = buf.indexOf(QUOTE, p);
          if (q < 0 || q >= len) {
            p = len;
            break;
          }
          let b = q - 1;
          while (b >= this.textStart && buf[b] === BACKSLASH) b--;
          p = q + 1;
          if ((q - 1 - b) % 2 === 1) break;
          this.textEnd = q;
          this.text = this.decodeText(buf);
          this.state = S_AFTER_TEXT;
          break;
        }
        case S_AFTER_TEXT:
          if (isSpace(c)) p++;
          else if (c === 0x2c) {
            p++;
            this.state = S_IDS_KEY;
            this.mark = -1;
          } else return this.other(S_OTHER);
          break;
        case S_IDS: {
          const close = buf.indexOf(0x5d, p);
          if (close < 0 || close >= len) {
            p = len;
            break;
          }
          const tokens = this.countIds(buf, this.mark, close);
          if (tokens === null) return this.other(S_OTHER);
          this.pos = close + 1;
          this.state = S_REPORTED;
          this.onEvent({ text: this.text, tokens, error: null, done: false });
          return;
        }
        default:
          return;
      }
    }
    this.pos = p;
  }

  private other(state: number): void {
    this.state = state;
  }

  /** The text string's JSON bytes decoded, reusing the previous event's decode for the common prefix. */
  private decodeText(buf: Buffer): string | null {
    const a = this.textStart;
    const b = this.textEnd;
    const prev = this.prevText;
    let from = a;
    let base = '';
    // A previous text that ended in U+FFFD may have ended inside a character: decode it all again.
    if (prev.len > 0 && b - a >= prev.len && !this.prevTextValue.endsWith('\uFFFD') && buf.compare(prev.buf, 0, prev.len, a, a + prev.len) === 0) {
      from = a + prev.len;
      base = this.prevTextValue;
    } else prev.len = 0;
    let added: string;
    const esc = buf.indexOf(BACKSLASH, from);
    if (esc < 0 || esc >= b) added = buf.toString('utf8', from, b);
    else {
      try {
        added = JSON.parse(`"${buf.toString('utf8', from, b)}"`) as string;
      } catch {
        prev.len = 0;
        this.prevTextValue = '';
        return null;
      }
    }
    prev.append(buf, from, b);
    this.prevTextValue = base.length === 0 ? added : base + added;
    return this.prevTextValue;
  }

  /** Entries of the id list buf[a, b), counting only bytes past the previous event's list. */
  private countIds(buf: Buffer, a: number, b: number): number | null {
    const prev = this.prevIds;
    let from = a;
    let count = 0;
    let any = false;
    if (prev.len > 0 && b - a >= prev.len && buf.compare(prev.buf, 0, prev.len, a, a + prev.len) === 0) {
      from = a + prev.len;
      count = this.prevCount;
      any = count > 0;
    } else prev.len = 0;
    for (let i = from; i < b; i++) {
      const c = buf[i]!;
      if (c === 0x2c) count++;
      else if (c >= 0x30 && c <= 0x39) {
        if (!any) {
          any = true;
          count++;
        }
      } else if (!isSpace(c)) {
        prev.len = 0;
        return null;
      }
    }
    prev.append(buf, from, b);
    this.prevCount = count;
    return count;
  }

  private endLine(): void {
    const state = this.state;
    const whole = this.lineLen <= this.limit;
    const headLen = this.headLen;
    this.headLen = 0;
    this.lineLen = 0;
    this.pos = 0;
    this.state = S_DATA;
    this.text = null;
    if (state === S_REPORTED || state === S_NOT_DATA) return;
    // Another shape (or a head cut short by the line's end): read the bounded prefix as a whole.
    const line = this.head.toString('utf8', 0, headLen);
    const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (!trimmed.startsWith('data:')) return;
    const data = trimmed.slice(5).trimStart();
    if (data === '[DONE]') {
      this.onEvent({ text: null, tokens: null, error: null, done: true });
      return;
    }
    if (whole) {
      try {
        const v = JSON.parse(data) as { text?: unknown; error?: unknown; output_ids?: unknown; meta_info?: { output_token_logprobs?: unknown } };
        const error = v.error === undefined ? null : errorText(v.error);
        this.onEvent({ text: typeof v.text === 'string' ? v.text : null, tokens: tokenCount(v), error, done: false });
        return;
      } catch {
        // fall through to the prefix reader
      }
    }
    this.onEvent({ text: leadingText(data), tokens: leadingOutputCount(data), error: null, done: false });
  }
}

/** A growable byte buffer that keeps its storage between uses. */
class Grow {
  buf: Buffer = Buffer.allocUnsafe(0);
  len = 0;

  append(src: Buffer, a: number, b: number): void {
    const need = this.len + (b - a);
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2, 64));
      this.buf.copy(grown, 0, 0, this.len);
      this.buf = grown;
    }
    src.copy(this.buf, this.len, a, b);
    this.len = need;
  }
}

function tokenCount(v: { output_ids?: unknown; meta_info?: { output_token_logprobs?: unknown } }): number | null {
  if (Array.isArray(v.output_ids)) return v.output_ids.length;
  const lp = typeof v.meta_info === 'object' && v.meta_info !== null ? v.meta_info.output_token_logprobs : undefined;
  return Array.isArray(lp) ? lp.length : null;
}

/** sglang writes `"output_ids": [...]` right after `text`: count its entries when the prefix holds the list. */
export function leadingOutputCount(data: string): number | null {
  const m = /"output_ids"\s*:\s*\[([0-9,\s]*)\]/.exec(data);
  if (!m) return null;
  const body = m[1]!.trim();
  return body.length === 0 ? 0 : body.split(',').length;
}

function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string') return (e as { message: string }).message;
  return JSON.stringify(e).slice(0, 200);
}

/** `{"text": "<json string>", ...` -> the decoded string, when the prefix holds all of it. */
export function leadingText(data: string): string | null {
  const m = /^\{\s*"text"\s*:\s*"/.exec(data);
  if (!m) return null;
  let i = m[0].length;
  while (i < data.length) {
    const c = data.charCodeAt(i);
    if (c === 0x5c) i += 2;
    else if (c === 0x22) {
      try {
        return JSON.parse(data.slice(m[0].length - 1, i + 1)) as string;
      } catch {
        return null;
      }
    } else i += 1;
  }
  return null;
}
