// A small HTTP/1.1 response reader for the /generate answer read over a raw socket (serve-socket.ts):
// status line, headers, then the body framed by content-length, chunked transfer coding or the
// connection's close. It never allocates per read: body bytes are handed on as views of the buffer
// they arrived in, and only the head and chunk-size lines (small, capped) are copied, because the
// socket reuses its read buffer for the next read.

/** The status line and headers together are refused beyond this (a serve's head is a few hundred bytes). */
export const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size line with its extensions; trailers count toward MAX_HEAD_BYTES. */
const MAX_CHUNK_LINE_BYTES = 4 * 1024;
/** 2^48 bytes: no /generate body comes near it, and every value below it is a safe integer. */
const MAX_CHUNK_HEX_DIGITS = 12;

export class HttpFramingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpFramingError';
  }
}

export interface ResponseHead {
  status: number;
  /** Lower-cased names; a repeated header's values joined with ', ' (as Node's http does for most). */
  headers: Record<string, string>;
}

/** What the body reader does with a slice; a returned promise means "read no further until it settles". */
export type BodySink = (view: Buffer) => void | Promise<void>;

const S_HEAD = 0;
const S_LENGTH = 1;
const S_CLOSE = 2;
const S_CHUNK_SIZE = 3;
const S_CHUNK_DATA = 4;
const S_CHUNK_CRLF = 5;
const S_TRAILERS = 6;
const S_DONE = 7;

const CHUNK_TOO_LONG = "a chunk of the serve's answer is longer than its size line says: its answer cannot be read";
const HEAD_TOO_LONG = `the serve's response head is over ${MAX_HEAD_BYTES / 1024} KiB: its answer cannot be read`;
const TRAILERS_TOO_LONG = `the serve's trailer section is over ${MAX_HEAD_BYTES / 1024} KiB: its answer cannot be read`;
const CR = 0x0d;
const LF = 0x0a;

/** The three ways a response body ends (RFC 9112 section 6.3), as decided from the head. */
function framingOf(head: ResponseHead): { kind: 'none' } | { kind: 'chunked' } | { kind: 'length'; length: number } | { kind: 'close' } {
  if (head.status === 204 || head.status === 304) return { kind: 'none' };
  const te = head.headers['transfer-encoding'];
  if (te !== undefined) {
    const codings = te
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter((s) => s.length > 0);
    // Chunked must be the last coding; any other transfer coding we cannot undo, so refuse it.
    if (codings.length === 1 && codings[0] === 'chunked') return { kind: 'chunked' };
    throw new HttpFramingError(`the serve answered with a transfer coding this panel does not read (${te.slice(0, 80)}): update the serve or report it`);
  }
  const cl = head.headers['content-length'];
  if (cl !== undefined) {
    // Repeated equal values are allowed (RFC 9112 6.3 item 5); differing ones are a framing fault.
    const values = new Set(cl.split(',').map((s) => s.trim()));
    const [only] = values;
    if (values.size !== 1 || only === undefined || !/^[0-9]{1,15}$/.test(only)) {
      throw new HttpFramingError(`the serve's content-length is not a byte count (${cl.slice(0, 80)}): its answer cannot be read`);
    }
    return { kind: 'length', length: Number(only) };
  }
  return { kind: 'close' };
}

/**
 * Reads one response from bytes fed to it in any split. `feed` returns how far it read; when a
 * body sink returned a promise it stops right after that slice and `takeWait()` returns the
 * promise: the caller must not read the socket again (its buffer would be overwritten) until it
 * settles, then feed the rest of the same buffer.
 */
export class HttpResponseReader {
  private state = S_HEAD;
  /** Copied bytes of the head, a chunk-size line or a trailer line (never body bytes). */
  private line = Buffer.allocUnsafe(0);
  private lineLen = 0;
  /** Head bytes so far, status line included, against MAX_HEAD_BYTES; then trailer bytes likewise. */
  private headBytes = 0;
  private remaining = 0;
  private wait: Promise<void> | null = null;
  private headValue: ResponseHead | null = null;
  private readonly onHead: (head: ResponseHead) => BodySink;
  private sink: BodySink | null = null;

  /** `onHead` sees the final (non-1xx) head and returns where that response's body goes. */
  constructor(onHead: (head: ResponseHead) => BodySink) {
    this.onHead = onHead;
  }

  get head(): ResponseHead | null {
    return this.headValue;
  }

  get done(): boolean {
    return this.state === S_DONE;
  }

  takeWait(): Promise<void> | null {
    const w = this.wait;
    this.wait = null;
    return w;
  }

  /** Gives up to `remaining` body bytes (a content-length body or one chunk's data); `next` once they are all given. */
  private counted(buf: Buffer, pos: number, end: number, next: number): number {
    const n = Math.min(this.remaining, end - pos);
    this.remaining -= n;
    if (this.remaining === 0) this.state = next;
    this.give(buf, pos, pos + n);
    return pos + n;
  }

  /** Reads buf[start, end); returns the position read to (end, or just past a slice whose sink asked to wait, or the response's end). */
  feed(buf: Buffer, start: number, end: number): number {
    let pos = start;
    while (pos < end && this.state !== S_DONE && this.wait === null) {
      switch (this.state) {
        case S_HEAD:
          pos = this.readHead(buf, pos, end);
          break;
        case S_LENGTH:
          pos = this.counted(buf, pos, end, S_DONE);
          break;
        case S_CLOSE:
          this.give(buf, pos, end);
          pos = end;
          break;
        case S_CHUNK_SIZE:
          pos = this.readLine(buf, pos, end, MAX_CHUNK_LINE_BYTES, `the serve's chunk-size line is longer than ${MAX_CHUNK_LINE_BYTES} bytes: its answer cannot be read`);
          if (this.state === S_CHUNK_SIZE && this.lineComplete) this.chunkSize();
          break;
        case S_CHUNK_DATA:
          pos = this.counted(buf, pos, end, S_CHUNK_CRLF);
          break;
        case S_CHUNK_CRLF:
          pos = this.readLine(buf, pos, end, 2, CHUNK_TOO_LONG);
          if (this.lineComplete) {
            if (this.lineLen !== 0) throw new HttpFramingError(CHUNK_TOO_LONG);
            this.state = S_CHUNK_SIZE;
          }
          break;
        case S_TRAILERS:
          pos = this.readTrailer(buf, pos, end);
          break;
      }
    }
    return pos;
  }

  /** The connection closed: fine for a close-delimited body, a truncation for every other state. */
  eof(): void {
    if (this.state === S_CLOSE) this.state = S_DONE;
    if (this.state !== S_DONE) throw new HttpFramingError('the serve closed the connection before the end of its answer');
  }

  private give(buf: Buffer, from: number, to: number): void {
    if (to <= from) return;
    const w = this.sink!(buf.subarray(from, to));
    if (w) this.wait = w;
  }

  private lineComplete = false;

  /** Copies bytes up to and including LF into `line` (without CR LF); sets lineComplete. */
  private readLine(buf: Buffer, pos: number, end: number, cap: number, tooLong: string): number {
    if (this.lineComplete) {
      this.lineComplete = false;
      this.lineLen = 0;
    }
    const nl = buf.indexOf(LF, pos);
    const stop = nl < 0 || nl >= end ? end : nl;
    this.append(buf, pos, stop, cap, tooLong);
    if (stop === end) return end;
    if (this.lineLen > 0 && this.line[this.lineLen - 1] === CR) this.lineLen--;
    this.lineComplete = true;
    return stop + 1;
  }

  private append(buf: Buffer, from: number, to: number, cap: number, tooLong: string): void {
    const n = to - from;
    if (n <= 0) return;
    // +1: the line's CR may still be in it.
    if (this.lineLen + n > cap + 1) throw new HttpFramingError(tooLong);
    if (this.lineLen + n > this.line.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.lineLen + n, Math.min(cap + 1, this.line.length * 2), 128));
      this.line.copy(grown, 0, 0, this.lineLen);
      this.line = grown;
    }
    buf.copy(this.line, this.lineLen, from, to);
    this.lineLen += n;
  }

  /** The head is gathered whole (status line and headers, up to the empty line), then parsed once. */
  private readHead(buf: Buffer, pos: number, end: number): number {
    const room = MAX_HEAD_BYTES - this.headBytes;
    const stop = Math.min(end, pos + room + 1);
    // Copy up to the head's end: an empty line, i.e. LF followed by (CR) LF.
    let p = pos;
    while (p < stop) {
      const nl = buf.indexOf(LF, p);
      if (nl < 0 || nl >= stop) {
        p = stop;
        break;
      }
      p = nl + 1;
      if (this.endsHead(buf, pos, p)) {
        this.appendHead(buf, pos, p);
        this.parseHead();
        return p;
      }
    }
    this.appendHead(buf, pos, p);
    if (this.headBytes > MAX_HEAD_BYTES) throw new HttpFramingError(HEAD_TOO_LONG);
    return p;
  }

  /** Whether the LF just before `p` ends an empty line, looking back into the copied head if needed. */
  private endsHead(buf: Buffer, from: number, p: number): boolean {
    // Bytes before the LF at p-1: an LF directly, or CR then LF.
    const at = (i: number): number => (i >= from ? buf[i]! : i - from + this.lineLen >= 0 ? this.line[this.lineLen + (i - from)]! : -1);
    const b1 = at(p - 2);
    if (b1 === LF) return true;
    return b1 === CR && at(p - 3) === LF;
  }

  private appendHead(buf: Buffer, from: number, to: number): void {
    this.headBytes += to - from;
    if (this.headBytes > MAX_HEAD_BYTES) throw new HttpFramingError(HEAD_TOO_LONG);
    this.append(buf, from, to, MAX_HEAD_BYTES, HEAD_TOO_LONG);
  }

  private parseHead(): void {
    const text = this.line.toString('latin1', 0, this.lineLen);
    this.lineLen = 0;
    this.headBytes = 0;
    const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    const m = /^HTTP\/1\.[01] ([0-9]{3})(?: [^\r\n]*)?$/.exec(lines[0] ?? '');
    if (!m) throw new HttpFramingError(`the serve's answer does not start with an HTTP/1.1 status line (${JSON.stringify((lines[0] ?? '').slice(0, 60))}): check the serve URL points at sglang`);
    const status = Number(m[1]);
    const headers: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const l of lines.slice(1)) {
      if (l === '') continue;
      const colon = l.indexOf(':');
      const name = colon > 0 ? l.slice(0, colon) : '';
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new HttpFramingError(`the serve sent a malformed header line (${JSON.stringify(l.slice(0, 60))}): its answer cannot be read`);
      const key = name.toLowerCase();
      const value = l.slice(colon + 1).trim();
      headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
    }
    // 1xx interim answers (100 Continue, 103 Early Hints) precede the real one: read on.
    if (status >= 100 && status < 200 && status !== 101) return;
    if (status === 101) throw new HttpFramingError('the serve switched protocols instead of answering: check the serve URL points at sglang');
    const head: ResponseHead = { status, headers };
    this.headValue = head;
    const framing = framingOf(head);
    this.sink = this.onHead(head);
    if (framing.kind === 'none') this.state = S_DONE;
    else if (framing.kind === 'chunked') this.state = S_CHUNK_SIZE;
    else if (framing.kind === 'close') this.state = S_CLOSE;
    else {
      this.remaining = framing.length;
      this.state = framing.length === 0 ? S_DONE : S_LENGTH;
    }
  }

  private chunkSize(): void {
    const text = this.line.toString('latin1', 0, this.lineLen);
    const semi = text.indexOf(';');
    const hex = (semi < 0 ? text : text.slice(0, semi)).trim();
    if (!/^[0-9a-fA-F]+$/.test(hex)) throw new HttpFramingError(`the serve sent a chunk size that is not hexadecimal (${JSON.stringify(hex.slice(0, 40))}): its answer cannot be read`);
    const digits = hex.replace(/^0+(?=.)/, '');
    if (digits.length > MAX_CHUNK_HEX_DIGITS) throw new HttpFramingError(`the serve sent a chunk size too large to be real (${hex.slice(0, 40)}): its answer cannot be read`);
    const size = parseInt(digits, 16);
    if (size === 0) {
      this.state = S_TRAILERS;
      this.headBytes = 0;
      this.lineComplete = false;
      this.lineLen = 0;
      return;
    }
    this.remaining = size;
    this.state = S_CHUNK_DATA;
  }

  /** Trailer lines after the last chunk, up to an empty line; read and dropped (nothing we need is sent there). */
  private readTrailer(buf: Buffer, pos: number, end: number): number {
    const p = this.readLine(buf, pos, end, MAX_HEAD_BYTES, TRAILERS_TOO_LONG);
    this.headBytes += p - pos;
    if (this.headBytes > MAX_HEAD_BYTES) throw new HttpFramingError(TRAILERS_TOO_LONG);
    if (this.lineComplete && this.lineLen === 0) this.state = S_DONE;
    return p;
  }
}
