// ParseJob, the caller's side of one body parse in the proof pool, driven with a recording `post`
// in place of the worker's port: what it sends, how often, and its backpressure.
import { describe, expect, it } from 'vitest';
import { ParseJob } from '../../../electron/engine/proof/proof-pool.ts';
import type { ParsedGeneration } from '../../../electron/engine/proof/proof-pool.ts';
import type { ToWorker } from '../../../electron/engine/proof/pool-protocol.ts';

function recordingJob(highWater: number) {
  const sent: ToWorker[] = [];
  const transfers: ArrayBuffer[][] = [];
  const job = new ParseJob(
    7,
    highWater,
    undefined,
    (msg, transfer) => (sent.push(msg), transfers.push(transfer ?? [])),
    () => undefined,
  );
  let settle: (v: ParsedGeneration) => void = () => undefined;
  job.attach(new Promise<ParsedGeneration>((r) => (settle = r)), () => undefined);
  const chunks = () => sent.filter((m): m is Extract<ToWorker, { type: 'chunk' }> => m.type === 'chunk');
  return { job, sent, transfers, chunks, settle };
}

const bytesOf = (n: number, seed: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

describe('ParseJob', () => {
  it('gathers socket-sized chunks into blocks: far fewer messages, the same bytes in order, each block its own transferred buffer', async () => {
    const r = recordingJob(2 * 1024 * 1024);
    const parts: Buffer[] = [];
    const scratch = Buffer.allocUnsafe(5000); // reused by the caller like a socket's buffer
    for (let i = 0; i < 100; i++) {
      const part = bytesOf(4000 + (i % 7) * 100, i);
      parts.push(part);
      part.copy(scratch);
      r.job.push(scratch.subarray(0, part.length));
      scratch.fill(0);
    }
    const end = r.job.end();
    const blocks = r.chunks();
    expect(blocks.length).toBeLessThanOrEqual(Math.ceil(Buffer.concat(parts).length / 65536));
    expect(Buffer.concat(blocks.map((b) => b.bytes))).toEqual(Buffer.concat(parts));
    for (const [i, m] of r.sent.entries()) if (m.type === 'chunk') expect(r.transfers[i]).toEqual([m.bytes.buffer]);
    expect(new Set(blocks.map((b) => b.bytes.buffer)).size).toBe(blocks.length);
    expect(r.sent.at(-1)).toEqual({ type: 'end', id: 7 });
    r.settle({ body: {} as ParsedGeneration['body'], proofs: null });
    await end;
  });

  it('counts the block being filled against the high-water mark, and wakes once the worker has caught up', async () => {
    const r = recordingJob(1000); // blocks of 250 bytes
    expect(r.job.push(bytesOf(600, 1))).toBe(true);
    expect(r.job.push(bytesOf(600, 2))).toBe(false);
    const sent = r.chunks().reduce((n, c) => n + c.bytes.byteLength, 0);
    let woke = false;
    const ready = r.job.ready().then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    r.job.consumed(sent);
    await ready;
    expect(woke).toBe(true);
  });

  it('sends nothing more after an abort, and tiny high-water marks still move every byte', () => {
    const r = recordingJob(2);
    r.job.push(bytesOf(5, 3));
    expect(r.chunks().reduce((n, c) => n + c.bytes.byteLength, 0)).toBe(5);
    r.job.abort();
    const count = r.sent.length;
    expect(r.job.push(bytesOf(5, 4))).toBe(false);
    expect(r.sent.length).toBe(count);
    expect(r.sent.at(-1)).toEqual({ type: 'abort', id: 7 });
  });
});
