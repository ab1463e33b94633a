import { afterAll, describe, expect, it } from 'vitest';
import { buildProofs, GenerateBodyError, MINER_PROOF_PARAMS, ProofPool, verifyProofs } from '../../../electron/engine/proof/index.ts';
import { buildBody, buildSse } from '../../helpers/generate-bodies.ts';
import { ManualClock } from '../../doubles/ops/update-driver-double.ts';

const enc = new TextEncoder();
const pool = new ProofPool({ size: 2, highWaterBytes: 4096 });
afterAll(() => pool.dispose());

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('ProofPool (real worker threads)', () => {
  it('parses a streamed body in a worker and builds the same proofs as the caller would', async () => {
    const s = buildSse({ hidden: 256, prefillRows: 4, decodeRows: 40, prefillShape: 'full', seed: 3 }, 4, true);
    const deltas: string[] = [];
    const got = await pool.parse(chunked(enc.encode(s.sse), 1000), { onTextDelta: (d) => deltas.push(d) });
    expect(deltas.join('')).toBe(s.texts[s.texts.length - 1]);
    expect(Array.from(got.body.rows.data)).toEqual(Array.from(s.final.expectedRows));
    const local = buildProofs({ data: s.final.expectedRows, rowCount: 41, hiddenSize: 256 }, MINER_PROOF_PARAMS);
    expect(got.proofs).toEqual(local);
    expect(got.body.outputTokenIds).toEqual(s.final.tokenIds);
  });

  it('builds and verifies proofs off the caller thread', async () => {
    const b = buildBody({ hidden: 512, prefillRows: 1, decodeRows: 70, prefillShape: 'trimmed', seed: 9 });
    const rows = { data: b.expectedRows, rowCount: 71, hiddenSize: 512 };
    const expected = buildProofs(rows, MINER_PROOF_PARAMS);
    const expectedChecks = verifyProofs(rows, expected, MINER_PROOF_PARAMS);
    const proofs = await pool.buildProofs({ ...rows, data: rows.data.slice() });
    expect(proofs).toEqual(expected);
    const checks = await pool.verifyProofs({ ...rows, data: rows.data.slice() }, [...proofs, null], MINER_PROOF_PARAMS);
    expect(checks.slice(0, 3)).toEqual(expectedChecks);
    expect(checks[3]!.failure).toBe('malformed-proof');
  });

  it('rejects a malformed body with the parser error, and keeps working', async () => {
    await expect(pool.parse(chunked(enc.encode('{"meta_info":{"hidden_states":[[1,2],[3]]}}'), 7))).rejects.toBeInstanceOf(GenerateBodyError);
    const b = buildBody({ hidden: 8, prefillRows: 2, decodeRows: 3, prefillShape: 'flat', seed: 1 });
    const got = await pool.parse(chunked(enc.encode(b.json), 5), { prove: null });
    expect(got.proofs).toBeNull();
    expect(got.body.rows.rowCount).toBe(4);
  });

  it('copies chunks from Node Buffers (pooled, reused, or over their own memory) before transferring them', async () => {
    const b = buildBody({ hidden: 16, prefillRows: 2, decodeRows: 6, prefillShape: 'flat', seed: 5 });
    const body = Buffer.from(b.json, 'utf8');
    const job = pool.openParse({ prove: null });
    const scratch = Buffer.allocUnsafe(64); // from Node's shared pool, reused for every chunk
    const own = Buffer.allocUnsafeSlow(64); // a whole ArrayBuffer of its own: must not be detached
    let i = 0;
    for (let n = 0; i < body.length; n++) {
      const part = body.subarray(i, i + 64);
      i += part.length;
      let chunk: Buffer;
      if (n % 3 === 0)
        chunk = Buffer.from(part.toString('latin1'), 'latin1'); // small: shares the pool
      else if (n % 3 === 1) chunk = scratch.subarray(0, part.copy(scratch));
      else chunk = own.subarray(0, part.copy(own));
      if (n % 3 !== 2) expect(chunk.buffer.byteLength).toBeGreaterThan(chunk.byteLength); // a view into a larger pool
      if (!job.push(chunk)) await job.ready();
      // The caller keeps its buffer: still readable, and free to reuse at once.
      expect(chunk.equals(part)).toBe(true);
      chunk.fill(0x20);
    }
    const got = await job.end();
    expect(got.body.rows.rowCount).toBe(7);
    expect(Array.from(got.body.rows.data)).toEqual(Array.from(b.expectedRows));
    expect(got.body.text).toBe('Hello, "world" \\ ünïcødé 😀 done');
    expect(got.body.outputTokenIds).toEqual(b.tokenIds);
  });

  it('lets a job be aborted mid-body', async () => {
    const job = pool.openParse();
    job.push(enc.encode('{"text":"x","meta_info":{"hidden_states":[[1,'));
    const ended = job.end();
    job.abort();
    await expect(ended).rejects.toThrow(/aborted/);
    const b = buildBody({ hidden: 8, prefillRows: 2, decodeRows: 3, prefillShape: 'flat', seed: 1 });
    expect((await pool.parse(chunked(enc.encode(b.json), 64))).body.rows.rowCount).toBe(4);
  });
});

describe('ProofPool when a worker dies', () => {
  it('fails the jobs on that worker instead of leaving them hanging, then starts a new worker', async () => {
    const crashing = new ProofPool({ size: 1, workerUrl: new URL('../../doubles/crashing-proof-worker.ts', import.meta.url) });
    try {
      const job = crashing.openParse();
      job.push(enc.encode('{"text":'));
      await expect(job.end()).rejects.toThrow(/stopped unexpectedly/);
      const again = crashing.openParse();
      again.push(enc.encode('{}'));
      await expect(again.end()).rejects.toThrow(/stopped unexpectedly/);
    } finally {
      await crashing.dispose();
    }
  });
});

describe('ProofPool tells a worker of a parse with its first bytes', () => {
  // The recording double answers each `end` with every message it had been sent, in order.
  const logOf = async (job: ReturnType<ProofPool['openParse']>) => ((await job.end()) as unknown as { log: string[] }).log;

  it('sends nothing while a job is only opened, the open with its first block or its end, and nothing at all for a job dropped before either', async () => {
    const rec = new ProofPool({ size: 1, highWaterBytes: 4096, workerUrl: new URL('../../doubles/recording-proof-worker.ts', import.meta.url) });
    try {
      const a = rec.openParse();
      a.push(enc.encode('{"text":"a"')); // under a block (1 KiB here): held on this side
      const dropped = rec.openParse();
      dropped.push(enc.encode('{"text":'));
      dropped.abort();
      const b = rec.openParse();
      // a and the dropped job were opened first, yet the worker heard only of b.
      expect(await logOf(b)).toEqual([`open ${b.id}`, `end ${b.id}`]);
      const c = rec.openParse();
      c.push(new Uint8Array(1024)); // fills a block: it goes now, after the open
      c.abort();
      expect(await logOf(a)).toEqual([`open ${b.id}`, `end ${b.id}`, `open ${c.id}`, `chunk ${c.id}`, `abort ${c.id}`, `open ${a.id}`, `chunk ${a.id}`, `end ${a.id}`]);
    } finally {
      await rec.dispose();
    }
  });
});

describe('ProofPool workers come and go with the work', () => {
  it('starts no worker until the first job, stops them after idleMs without one, and starts again on the next job', async () => {
    const clock = new ManualClock();
    const lazy = new ProofPool({ size: 2, idleMs: 60_000, clock });
    try {
      expect(lazy.workers).toBe(0);
      const b = buildBody({ hidden: 64, prefillRows: 1, decodeRows: 8, prefillShape: 'trimmed', seed: 2 });
      const rows = { data: b.expectedRows, rowCount: 9, hiddenSize: 64 };
      const expected = buildProofs(rows, MINER_PROOF_PARAMS);
      expect(await lazy.buildProofs({ ...rows, data: rows.data.slice() })).toEqual(expected);
      expect(lazy.workers).toBe(1);
      // Idle but not yet for idleMs: the worker stays.
      clock.advance(59_999);
      expect(lazy.workers).toBe(1);
      clock.advance(1);
      expect(lazy.workers).toBe(0);
      expect(clock.pending).toBe(0);
      expect((await lazy.parse(chunked(enc.encode(b.json), 50), { prove: null })).body.rows.rowCount).toBe(9);
      expect(lazy.workers).toBe(1);
      // A job arriving during an idle countdown cancels it.
      clock.advance(30_000);
      const job = lazy.openParse({ prove: null });
      clock.advance(60_000);
      // The idle worker took the job (no second thread) and was not stopped under it.
      expect(lazy.workers).toBe(1);
      for await (const c of chunked(enc.encode(b.json), 50)) {
        job.push(c);
        await job.ready();
      }
      expect((await job.end()).body.rows.rowCount).toBe(9);
      clock.advance(60_000);
      expect(lazy.workers).toBe(0);
    } finally {
      await lazy.dispose();
    }
  });
});
