import { describe, expect, it } from 'vitest';
import { rowsForHandOver } from '../../../electron/engine/miner/proof-adapter.ts';

describe('rows handed to the proof worker', () => {
  it('passes rows that lie back to back in one buffer as a view of it, without a copy', () => {
    const whole = new Uint16Array(5 * 4).map((_, i) => i);
    // One serve call's rows, the overlap row dropped: rows 1..4 of the parse.
    const rows = [1, 2, 3, 4].map((r) => whole.subarray(r * 4, (r + 1) * 4));
    const got = rowsForHandOver(rows);
    expect(got.data.buffer).toBe(whole.buffer);
    expect(got.data.byteOffset).toBe(4 * 2);
    expect([got.rowCount, got.hiddenSize]).toEqual([4, 4]);
    expect(Array.from(got.data)).toEqual(Array.from(whole.subarray(4)));
  });

  it('copies rows from several buffers, out of order, or of different sizes into one', () => {
    const a = new Uint16Array([1, 2, 3, 4]);
    const b = new Uint16Array([5, 6, 7, 8]);
    for (const rows of [
      [a.subarray(0, 2), b.subarray(0, 2)],
      [a.subarray(2, 4), a.subarray(0, 2)],
      [a.subarray(0, 2), a.subarray(2, 3)],
    ]) {
      const got = rowsForHandOver(rows);
      expect(got.data.buffer).not.toBe(a.buffer);
      expect(got.data.buffer).not.toBe(b.buffer);
      expect(Array.from(got.data.subarray(0, 2))).toEqual(Array.from(rows[0]!));
    }
    expect(rowsForHandOver([])).toEqual({ data: new Uint16Array(0), rowCount: 0, hiddenSize: 0 });
  });
});
