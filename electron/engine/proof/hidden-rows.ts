// Collects meta_info.hidden_states as bf16 rows, keeping only what the proof needs, with the
// reference miner's rule (_fin_rows): every non-empty element gives one row (the LAST row of a 2-D
// prefill block, or the vector itself); empty elements before the first row count output tokens
// that have no row (a full radix-cache hit); empty elements after it are ignored.
//
// 1-D rows are parsed straight into the output buffer. Rows of a 2-D block are only copied as bytes
// (native indexOf finds the closing bracket) and just the last one is parsed, so an untrimmed
// prefill block of thousands of rows costs a memory copy, not a number parse.
import { GenerateBodyError } from './body-error.ts';
import { isTokenByte, literalToBf16, scanNumberToBf16, scanResult, SCAN_INCOMPLETE, SCAN_INVALID } from './number-scan.ts';
import type { StreamingProver } from './stream-proof.ts';
import type { Bf16Rows } from './types.ts';

const MAX_TOKEN = 400;
/** The most values a row-count hint may reserve (a hint is a request's max_new_tokens; 128 MiB). */
const MAX_RESERVE = 64 * 1024 * 1024;

export class HiddenRowSink {
  private data: Uint16Array = new Uint16Array(1 << 16);
  private written = 0;
  hiddenSize = 0;
  /**
   * Rows the body is expected to hold (the call's max_new_tokens), or 0: once the first row gives
   * the row size, the buffer is sized for them in one step, instead of doubling up to it (which
   * holds the old and the new buffer at once: 24 MiB for a 16 MiB 4096-row request).
   */
  expectRows = 0;
  /**
   * Proves each batch of rows as soon as it is complete and reuses its memory (stream-proof.ts):
   * the buffer then holds one batch, never the body's rows. take() is not used then.
   */
  prover: StreamingProver | null = null;
  rowCount = 0;
  rowOffset = 0;
  /** Per-row parse state. */
  private col = 0;
  private expectValue = true;
  private first = true;
  rowDone = false;
  /** A number or literal split across chunks. */
  private carry = new Uint8Array(MAX_TOKEN);
  private carryLen = 0;
  /** Bytes of the current 2-D block row (after its '[' up to and including its ']'). */
  private blockRow: Uint8Array = new Uint8Array(1 << 16);
  private blockRowLen = 0;

  reset(): void {
    this.written = 0;
    this.hiddenSize = 0;
    this.rowCount = 0;
    this.rowOffset = 0;
    this.carryLen = 0;
    this.prover?.reset();
  }

  beginRow(): void {
    this.col = 0;
    this.expectValue = true;
    this.first = true;
    this.rowDone = false;
    this.carryLen = 0;
  }

  /** An element that is empty (`[]`, or a block whose last row is empty). */
  emptyElement(): void {
    if (this.rowCount === 0) this.rowOffset++;
  }

  /** Parses a 1-D row from pos; returns where it stopped (rowDone tells whether its ']' was reached). */
  parseRow(buf: Uint8Array, pos: number, end: number, final: boolean): number {
    if (this.carryLen > 0) {
      pos = this.extendCarry(buf, pos, end);
      if (pos === end && !final) return end;
      this.storeToken(this.carry, 0, this.carryLen);
      this.carryLen = 0;
    }
    let out = this.data;
    let at = this.written + this.col;
    while (pos < end) {
      const c = buf[pos]!;
      if (this.expectValue) {
        if ((c >= 48 && c <= 57) || c === 45) {
          // Fast lane for the common "number,number,..." run, with the state in locals.
          let r = scanNumberToBf16(buf, pos, end, final);
          if (r >= 0) {
            let col = this.col;
            for (;;) {
              if (at >= out.length) out = this.grow();
              out[at++] = scanResult.bits;
              col++;
              pos = r;
              if (pos + 1 >= end || buf[pos] !== 44) break;
              const d = buf[pos + 1]!;
              if (!((d >= 48 && d <= 57) || d === 45)) break;
              r = scanNumberToBf16(buf, pos + 1, end, final);
              if (r < 0) break;
            }
            this.col = col;
            this.expectValue = false;
            this.first = false;
            continue;
          }
          if (r === SCAN_INCOMPLETE) return this.startCarry(buf, pos, end);
          // SCAN_INVALID: maybe -Infinity; fall through to the literal path
        }
        if (c === 32 || c === 9 || c === 10 || c === 13) {
          pos++;
        } else if (c === 93 && this.first) {
          this.rowDone = true;
          return this.finishRow(pos + 1);
        } else if (isTokenByte(c)) {
          let t = pos;
          while (t < end && isTokenByte(buf[t]!)) t++;
          if (t === end && !final) return this.startCarry(buf, pos, end);
          this.storeToken(buf, pos, t);
          out = this.data;
          at = this.written + this.col;
          pos = t;
        } else throw new GenerateBodyError(`malformed /generate body: unexpected '${String.fromCharCode(c)}' in a hidden-state row`);
      } else if (c === 44) {
        this.expectValue = true;
        pos++;
      } else if (c === 93) {
        this.rowDone = true;
        return this.finishRow(pos + 1);
      } else if (c === 32 || c === 9 || c === 10 || c === 13) {
        pos++;
      } else throw new GenerateBodyError(`malformed /generate body: expected ',' or ']' in a hidden-state row, got '${String.fromCharCode(c)}'`);
    }
    return pos;
  }

  /** Copies a block row's bytes until its ']'; returns the index after it, or -1 if it goes on. */
  copyBlockRow(buf: Uint8Array, pos: number, end: number): number {
    let stop = buf.indexOf(93, pos);
    if (stop < 0 || stop >= end) stop = -1;
    const to = stop < 0 ? end : stop + 1;
    const seg = buf.subarray(pos, to);
    if (seg.indexOf(91) >= 0 || seg.indexOf(123) >= 0 || seg.indexOf(34) >= 0) throw new GenerateBodyError('malformed /generate body: hidden_states is nested deeper than rows of numbers');
    const need = this.blockRowLen + seg.length;
    if (need > this.blockRow.length) {
      const grown = new Uint8Array(Math.max(need, this.blockRow.length * 2));
      grown.set(this.blockRow.subarray(0, this.blockRowLen));
      this.blockRow = grown;
    }
    this.blockRow.set(seg, this.blockRowLen);
    this.blockRowLen = need;
    return stop < 0 ? -1 : to;
  }

  beginBlockRow(): void {
    this.blockRowLen = 0;
  }

  /** The block closed: its last row is the element's row. */
  finishBlock(): void {
    this.beginRow();
    const end = this.parseRow(this.blockRow, 0, this.blockRowLen, true);
    if (!this.rowDone || end !== this.blockRowLen) throw new GenerateBodyError('malformed /generate body: a prefill row is not a list of numbers');
  }

  /**
   * The collected rows in an exact-size buffer of their own (transferable). The buffer is handed
   * over, not copied, where the runtime can shrink it in place; the sink starts a new one.
   */
  take(): Bf16Rows {
    const buffer = this.data.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
    const data = typeof buffer.transfer === 'function' && this.data.byteOffset === 0 ? new Uint16Array(buffer.transfer(this.written * 2)) : this.data.slice(0, this.written);
    this.data = new Uint16Array(1 << 16);
    this.written = 0;
    return { data, rowCount: this.rowCount, hiddenSize: this.hiddenSize };
  }

  private finishRow(pos: number): number {
    const n = this.col;
    if (n === 0) {
      this.emptyElement();
      return pos;
    }
    if (this.hiddenSize === 0) {
      this.hiddenSize = n;
      this.reserve(n);
    } else if (n !== this.hiddenSize) throw new GenerateBodyError(`malformed /generate body: hidden-state rows differ in size (${n} after ${this.hiddenSize})`);
    this.written += n;
    this.rowCount++;
    const p = this.prover;
    if (p !== null && this.rowCount % p.batchRows === 0) {
      p.batch(this.data, 0, this.written);
      this.written = 0;
    }
    return pos;
  }

  private storeToken(buf: Uint8Array, start: number, stop: number): void {
    let bits: number;
    const c = buf[start]!;
    if ((c >= 48 && c <= 57) || c === 45) {
      const r = scanNumberToBf16(buf, start, stop, true);
      if (r === stop) bits = scanResult.bits;
      else if (r === SCAN_INVALID) bits = literalToBf16(buf, start, stop);
      else bits = -1;
    } else bits = literalToBf16(buf, start, stop);
    if (bits < 0 || !this.expectValue) throw new GenerateBodyError('malformed /generate body: a hidden-state value is not a number');
    const at = this.written + this.col;
    if (at >= this.data.length) this.grow();
    this.data[at] = bits;
    this.col++;
    this.expectValue = false;
    this.first = false;
  }

  private startCarry(buf: Uint8Array, pos: number, end: number): number {
    if (end - pos > MAX_TOKEN) throw new GenerateBodyError('malformed /generate body: a hidden-state number is too long');
    this.carry.set(buf.subarray(pos, end), 0);
    this.carryLen = end - pos;
    return end;
  }

  private extendCarry(buf: Uint8Array, pos: number, end: number): number {
    while (pos < end && isTokenByte(buf[pos]!)) {
      if (this.carryLen >= MAX_TOKEN) throw new GenerateBodyError('malformed /generate body: a hidden-state number is too long');
      this.carry[this.carryLen++] = buf[pos++]!;
    }
    return pos;
  }

  /** With a prover: the proofs over the first `keep` rows (the rows past the last batch are still here). */
  finishProofs(keep: number): string[] {
    if (this.prover === null) throw new Error('no rows were proven as they were parsed');
    return this.prover.finish(keep, this.rowCount, this.data, this.hiddenSize);
  }

  private reserve(hidden: number): void {
    const want = (this.prover !== null ? this.prover.batchRows : this.expectRows) * hidden;
    if (!(want > this.data.length && want <= MAX_RESERVE)) return;
    const sized = new Uint16Array(want);
    sized.set(this.data.subarray(0, this.written + hidden));
    this.data = sized;
  }

  private grow(): Uint16Array {
    const grown = new Uint16Array(this.data.length * 2);
    grown.set(this.data);
    this.data = grown;
    return grown;
  }
}
