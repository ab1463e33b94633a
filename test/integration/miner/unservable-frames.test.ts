// Issue 17 item 4: a serve frame the miner cannot run is answered with an error response (not
// silence, which holds the buyer for the gateway's whole deadline); ping replies report the
// process-wide load; an old socket drains for the whole request deadline.
import { WebSocketServer, type WebSocket } from 'ws';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../electron/engine/lib/clock.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import { parseGatewayFrame } from '../../../electron/engine/miner/frames.ts';
import { DEFAULT_LEG_TIMINGS, LegConnection } from '../../../electron/engine/miner/leg-connection.ts';
import { leadingOutputCount, SseTextScanner } from '../../../electron/engine/miner/sse-text.ts';
import { gatewayWorkersFromEnv, WorkerLoad } from '../../../electron/engine/miner/worker-load.ts';

const capacity = { max_inflight: 1, max_inflight_total: 1, max_input_tokens: 10, max_output_tokens: 10, max_request_s: 1800 };
const hello = () => ({ type: 'hello' as const, miner_key: 'k', model: 'm', model_root: 'r', hw: {} as never, versions: {}, capacity, worker_name: 'w', instance_id: 'w', worker_id: 'id' });

let server: WebSocketServer | null = null;
let conn: LegConnection | null = null;
afterEach(() => {
  conn?.close('test over');
  server?.close();
});

async function connect(load?: WorkerLoad): Promise<{ peer: WebSocket; got: () => Record<string, unknown>[]; served: unknown[] }> {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => server!.once('listening', r));
  const port = (server.address() as AddressInfo).port;
  const frames: Record<string, unknown>[] = [];
  const served: unknown[] = [];
  const peerP = new Promise<WebSocket>((resolve) =>
    server!.once('connection', (ws) => {
      ws.on('message', (d) => frames.push(JSON.parse(d.toString()) as Record<string, unknown>));
      resolve(ws);
    }),
  );
  conn = new LegConnection({
    legIndex: 0,
    url: `ws://127.0.0.1:${port}`,
    hello,
    capacity,
    timings: DEFAULT_LEG_TIMINGS,
    clock: systemClock,
    log: silentLogger,
    hooks: { onOpen: () => {}, onFrame: (_c, f) => served.push(f), onClose: () => {} },
    ...(load ? { load } : {}),
  });
  return { peer: await peerP, got: () => frames, served };
}

async function until(pred: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(pred()).toBe(true);
}

describe('unservable serve frames', () => {
  it('answers each with an error response under its corr_id, and never runs it', async () => {
    const { peer, got, served } = await connect();
    await until(() => got().length === 1); // hello
    const cases: [unknown, string | number | null][] = [
      [{ type: 'serve', corr_id: 'c1', request: { engy_request_id: 'r1' } }, 'c1'],
      [{ type: 'serve', corr_id: 'c2', request: { messages: 'hi' } }, 'c2'],
      [{ type: 'serve', corr_id: 'c3', request: null }, 'c3'],
      [{ type: 'serve', corr_id: 'c4', request: { messages: { __proto__: [] } } }, 'c4'],
      [{ type: 'serve', corr_id: 7, request: { messages: 'x' } }, 7],
      [{ type: 'serve', corr_id: 'c5' }, 'c5'],
      [{ type: 'serve', corr_id: { nested: 1 }, request: { messages: [] } }, null],
      [{ type: 'serve', request: { messages: [] } }, null],
      [{ type: 'serve', corr_id: '__proto__', request: [] }, '__proto__'],
    ];
    for (const [f] of cases) peer.send(JSON.stringify(f));
    peer.send('not json');
    const expected = cases.filter(([, id]) => id !== null).map(([, id]) => id);
    await until(() => got().length === 1 + expected.length);
    await new Promise((r) => setTimeout(r, 100));
    const responses = got().slice(1);
    expect(responses.map((r) => r.corr_id)).toEqual(expected);
    for (const r of responses) {
      expect(r.type).toBe('response');
      expect(r.commitment).toBeNull();
      expect(r.output).toEqual({});
      const err = r.error as { message: string; type: string; status: number };
      expect(err.message).toMatch(/could not serve this request: serve (without|corr_id)/);
      expect(err).toMatchObject({ type: 'BadRequest', status: 400 });
    }
    expect(responses[0]!.request_id).toBe('r1');
    expect(served).toEqual([]);
  });

  it('the parser says why and which corr_id to answer', () => {
    expect(parseGatewayFrame('{"type":"serve","corr_id":"c","request":{}}')).toEqual({ ok: false, reason: 'serve without request.messages', corrId: 'c' });
    expect(parseGatewayFrame('{"type":"serve","corr_id":1.5,"request":{"messages":[]}}')).toMatchObject({ ok: true, frame: { corr_id: '1.5', wireCorrId: 1.5 } });
    expect(parseGatewayFrame('{"type":"serve","corr_id":null}')).toEqual({ ok: false, reason: 'serve without request.messages', corrId: null });
    expect(parseGatewayFrame('{"type":"serve"}')).toEqual({ ok: false, reason: 'serve without corr_id' });
  });
});

describe('ping replies and drain window', () => {
  it('a ping is answered with the load of the whole process', async () => {
    const load = new WorkerLoad(systemClock);
    load.start();
    load.start();
    const { peer, got } = await connect(load);
    await until(() => got().length === 1);
    peer.send(JSON.stringify({ type: 'ping' }));
    await until(() => got().length === 2);
    expect(got()[1]).toMatchObject({ type: 'heartbeat', inflight: 2, idle_seconds: 0 });
    load.done();
    load.done();
    load.done(); // never below zero
    expect(load.inflight()).toBe(0);
  });

  it('an old socket drains as long as the 1800 s request deadline', () => {
    expect(DEFAULT_LEG_TIMINGS.drainMaxMs).toBe(capacity.max_request_s * 1000);
  });
});

describe('ENGY_GW_WORKERS', () => {
  it('reads a whole number and refuses anything else with a sentence', () => {
    expect(gatewayWorkersFromEnv({})).toEqual({ workers: null, error: null });
    expect(gatewayWorkersFromEnv({ ENGY_GW_WORKERS: ' 4 ' })).toEqual({ workers: 4, error: null });
    expect(gatewayWorkersFromEnv({ ENGY_GW_WORKERS: '0' })).toEqual({ workers: 1, error: null });
    for (const bad of ['-2', '2.5', 'eight', '1e3', '99999999', 'constructor']) {
      const r = gatewayWorkersFromEnv({ ENGY_GW_WORKERS: bad });
      expect(r.workers).toBeNull();
      expect(r.error).toMatch(/ENGY_GW_WORKERS=.* is not a whole number/);
    }
  });
});

describe('SSE events count their output tokens', () => {
  it('from output_ids, from logprobs, or from the prefix of a huge event', () => {
    const got: (number | null)[] = [];
    const s = new SseTextScanner((e) => got.push(e.tokens), 80);
    s.push(Buffer.from('data: {"text":"","output_ids":[],"meta_info":{}}\n'));
    s.push(Buffer.from('data: {"text":"a","meta_info":{"output_token_logprobs":[[0,5,null]]}}\n'));
    s.push(Buffer.from(`data: {"text":"ab","output_ids":[5, 6],"meta_info":{"hidden_states":[${'0.5,'.repeat(100)}1]}}\n`));
    s.push(Buffer.from(`data: {"text":"abc","meta_info":{"hidden_states":[${'0.5,'.repeat(100)}1]}}\n`));
    expect(got).toEqual([0, 1, 2, null]);
    expect(leadingOutputCount('{"text":"\\"output_ids\\":[1,2]"')).toBeNull();
  });
});
