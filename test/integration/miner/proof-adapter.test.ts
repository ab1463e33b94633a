// The miner's binding to the proof engine: backpressure from the worker pool, Buffers from the
// socket, and the "no hidden states" answer for a body with no rows.
import { afterAll, describe, expect, it } from 'vitest';
import { buildProofs, MINER_PROOF_PARAMS, NO_HIDDEN_STATES_MESSAGE, ProofPool } from '../../../electron/engine/proof/index.ts';
import { createProofPort } from '../../../electron/engine/miner/proof-adapter.ts';
import { DECODE_BATCHING, TOPK, type ProofPort } from '../../../electron/engine/miner/proof-port.ts';
import { buildBody } from '../../helpers/generate-bodies.ts';

const pool = new ProofPool({ size: 1, highWaterBytes: 256 });
afterAll(() => pool.dispose());

const ports: [string, ProofPort][] = [
  ['worker pool', createProofPort(pool)],
  ['calling thread', createProofPort()],
];

describe.each(ports)('proof adapter (%s)', (name, port) => {
  it('parses a body pushed as reused socket-like Buffers, waiting for ready() whenever push says so', async () => {
    const b = buildBody({ hidden: 64, prefillRows: 3, decodeRows: 20, prefillShape: 'trimmed', seed: 11 });
    const body = Buffer.from(b.json, 'utf8');
    const session = port.openBodyParser('json');
    const scratch = Buffer.allocUnsafe(100); // pooled, and reused like a socket's buffer
    let refused = 0;
    for (let i = 0; i < body.length; i += 100) {
      const chunk = scratch.subarray(0, body.copy(scratch, 0, i, i + 100));
      if (!session.push(chunk)) {
        refused++;
        await session.ready();
      }
      scratch.fill(0);
    }
    if (name === 'worker pool') expect(refused).toBeGreaterThan(0);
    const got = await session.end();
    expect(got.outputIds).toEqual(b.tokenIds);
    expect(got.rows).toHaveLength(21);
    expect(Array.from(got.rows[20]!)).toEqual(Array.from(b.expectedRows.subarray(20 * 64)));
  });

  it('says "no hidden states" when the key is missing, and when it holds no rows for the tokens', async () => {
    const bodies = [
      '{"text":"hi","meta_info":{"finish_reason":{"type":"length","length":2},"output_token_logprobs":[[0,5,null],[0,6,null]]}}',
      '{"text":"hi","meta_info":{"finish_reason":{"type":"length","length":2},"output_token_logprobs":[[0,5,null],[0,6,null]],"hidden_states":[]}}',
      '{"text":"hi","meta_info":{"finish_reason":{"type":"length","length":2},"output_token_logprobs":[[0,5,null],[0,6,null]],"hidden_states":[[],[]]}}',
    ];
    for (const text of bodies) {
      const session = port.openBodyParser('json');
      session.push(Buffer.from(text));
      await expect(session.end()).rejects.toThrow(NO_HIDDEN_STATES_MESSAGE);
    }
  });

  it('proves a call as it is parsed: the same proofs over the kept rows, no rows handed back', async () => {
    // 70 rows, 69 tokens after a rowless first one: 69 rows kept, proofs as buildProofs gives them.
    const b = buildBody({ hidden: 96, prefillRows: 0, decodeRows: 69, prefillShape: 'flat', seed: 12 });
    const o = JSON.parse(b.json) as { meta_info: { hidden_states: unknown[] } };
    o.meta_info.hidden_states.push(o.meta_info.hidden_states[1]);
    const body = Buffer.from(JSON.stringify(o), 'utf8');
    const session = port.openBodyParser('json', 4096, { topk: TOPK, batching: DECODE_BATCHING });
    for (let i = 0; i < body.length; i += 300) if (!session.push(body.subarray(i, i + 300))) await session.ready();
    const got = await session.end();
    expect(got.rows).toHaveLength(0);
    expect(got.offset).toBe(1);
    expect(got.proven?.rows).toBe(69);
    expect(got.proven?.proofs).toEqual(buildProofs({ data: b.expectedRows.slice(0, 69 * 96), rowCount: 69, hiddenSize: 96 }, MINER_PROOF_PARAMS));
  });
});

describe('proof adapter on the worker pool: the parse opens with the body', () => {
  // Opening posts to a worker: done before the request's write, it delayed every request of a burst.
  it('opens the worker parse at the first bytes, not at openBodyParser', async () => {
    const own = new ProofPool({ size: 1 });
    try {
      const opened: unknown[] = [];
      const openParse = own.openParse.bind(own);
      own.openParse = (o) => {
        opened.push(o);
        return openParse(o);
      };
      const port = createProofPort(own);
      const session = port.openBodyParser('json');
      await session.ready();
      expect(opened).toHaveLength(0);
      const b = buildBody({ hidden: 32, prefillRows: 1, decodeRows: 4, prefillShape: 'trimmed', seed: 5 });
      session.push(Buffer.from(b.json, 'utf8'));
      expect(opened).toHaveLength(1);
      expect((await session.end()).outputIds).toEqual(b.tokenIds);
      expect(opened).toHaveLength(1);
    } finally {
      await own.dispose();
    }
  });

  it('a body with no bytes at all is refused as the in-thread parser refuses it; a discarded one never reaches a worker', async () => {
    const own = new ProofPool({ size: 1 });
    try {
      let opened = 0;
      const openParse = own.openParse.bind(own);
      own.openParse = (o) => {
        opened++;
        return openParse(o);
      };
      const port = createProofPort(own);
      await expect(port.openBodyParser('sse').end()).rejects.toThrow('the stream ended with no events');
      expect(opened).toBe(1);
      const gone = port.openBodyParser('sse');
      gone.discard();
      await expect(gone.end()).rejects.toThrow('the body parser was discarded');
      expect(opened).toBe(1);
    } finally {
      await own.dispose();
    }
  });
});
