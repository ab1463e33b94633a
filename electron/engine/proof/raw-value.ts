// Skips (or captures the bytes of) one JSON value of any shape, across chunk boundaries, tracking
// only nesting and strings. Used for every part of the body the proof does not need, and for the
// small values read with JSON.parse once complete (finish_reason, counters, text).
import { GenerateBodyError } from './body-error.ts';

const UTF8 = new TextDecoder();

/** One JSON value from its UTF-8 bytes; a body error naming `what` when it is not JSON. */
export function parseJsonBytes(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(UTF8.decode(bytes));
  } catch {
    throw new GenerateBodyError(`malformed /generate body: ${what} is not valid JSON`);
  }
}

export class RawValue {
  private depth = 0;
  private inString = false;
  private escape = false;
  private started = false;
  private scalar = false;
  private capturing = false;
  private bytes = new Uint8Array(256);
  private length = 0;
  private readonly maxCapture: number;

  constructor(maxCaptureBytes: number) {
    this.maxCapture = maxCaptureBytes;
  }

  begin(capture: boolean): void {
    this.depth = 0;
    this.inString = false;
    this.escape = false;
    this.started = false;
    this.scalar = false;
    this.capturing = capture;
    this.length = 0;
  }

  /** Consumes bytes from pos (the value's first byte on the first call); index after the value, or -1 if it goes on. */
  feed(buf: Uint8Array, pos: number, end: number): number {
    let p = pos;
    let done = false;
    if (!this.started) {
      this.started = true;
      const c = buf[p]!;
      if (c === 123 || c === 91) {
        this.depth = 1;
        p++;
      } else if (c === 34) {
        this.inString = true;
        p++;
      } else this.scalar = true;
    }
    let depth = this.depth;
    let inString = this.inString;
    let escape = this.escape;
    while (p < end) {
      const c = buf[p]!;
      if (inString) {
        p++;
        if (escape) escape = false;
        else if (c === 92) escape = true;
        else if (c === 34) {
          inString = false;
          if (depth === 0) {
            done = true;
            break;
          }
        }
        continue;
      }
      if (this.scalar) {
        if (c === 44 || c === 93 || c === 125 || c === 32 || c === 9 || c === 10 || c === 13) {
          done = true;
          break;
        }
        p++;
        continue;
      }
      p++;
      if (c === 34) inString = true;
      else if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        if (--depth === 0) {
          done = true;
          break;
        }
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escape = escape;
    if (this.capturing) this.append(buf, pos, p);
    return done ? p : -1;
  }

  /**
   * The captured value as a non-negative integer when it is plain digits (a token id: read
   * thousands of times per stream event, so without a string or a parse each), else -1.
   */
  digits(): number {
    const n = this.length;
    if (n === 0 || n > 15 || (n > 1 && this.bytes[0] === 48)) return -1;
    let v = 0;
    for (let i = 0; i < n; i++) {
      const d = this.bytes[i]! - 48;
      if (d < 0 || d > 9) return -1;
      v = v * 10 + d;
    }
    return v;
  }

  /** The captured bytes (a view, valid until the next value is captured). */
  captured(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  /** The captured value, parsed. */
  parse(what: string): unknown {
    return parseJsonBytes(this.bytes.subarray(0, this.length), what);
  }

  private append(buf: Uint8Array, from: number, to: number): void {
    const need = this.length + (to - from);
    if (need > this.maxCapture) throw new GenerateBodyError(`malformed /generate body: a value the proof reads is larger than ${this.maxCapture} bytes`);
    if (need > this.bytes.length) {
      const grown = new Uint8Array(Math.max(need, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.bytes.set(buf.subarray(from, to), this.length);
    this.length = need;
  }
}
