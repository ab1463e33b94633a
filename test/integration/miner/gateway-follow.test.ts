// Issue 32 items 3 and 4 (and issue 31's unbounded /meta): the leg count follows the gateway's
// `/meta` (re-read every 5 s on the test's clock: scale up adds legs, scale down drains removed
// ones, a failed read keeps the count), and the load is pushed on every request start and end,
// coalesced, with the serve's `kv`.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import type { KvLoad } from '../../../electron/engine/miner/frames.ts';
import { GatewayClient, LOAD_PUSH_MS, META_RECHECK_MS } from '../../../electron/engine/miner/gateway-client.ts';
import { MAX_GATEWAY_WORKERS, readGatewayWorkers, type FetchLike } from '../../../electron/engine/miner/leg-plan.ts';
import { WorkerLoad } from '../../../electron/engine/miner/worker-load.ts';
import { GatewayDouble } from '../../doubles/gateway/gateway-double.ts';
import { ManualClock } from '../../doubles/ops/update-driver-double.ts';
import { KEY } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(pred: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function setUp(workers: number, maxInflight: number, load?: WorkerLoad, clock = new ManualClock()) {
  const gw = new GatewayDouble({ workers, keys: [KEY], probe: false, judgeAfterMs: 60_000, recordFrames: true });
  await gw.start();
  cleanups.push(() => gw.stop());
  const events: string[] = [];
  const client = new GatewayClient({
    gatewayUrl: gw.url,
    identity: { model: 'qwen3.6-35b-a3b', modelRoot: 'r'.repeat(64), workerName: 'w', workerId: 'id-1', hw: {} as never, versions: {}, minerKey: () => KEY },
    limits: { maxInflightTotal: maxInflight, maxInputTokens: 10, maxOutputTokens: 10, maxRequestS: 60 },
    handlers: { onServe: () => {}, onCancel: () => {}, onChange: () => {}, onEvent: (_i, t) => events.push(t) },
    fetch: (url, init) => fetch(url, init),
    clock,
    log: silentLogger,
    ...(load ? { load } : {}),
  });
  cleanups.push(() => client.stop());
  await client.start();
  const openLegs = () => Array.from({ length: 64 }, (_, i) => gw.socketsOn(i)).reduce((n, k, i) => (k > 0 ? [...n, i] : n), [] as number[]);
  return { gw, client, clock, events, openLegs };
}

/** One recheck of `/meta` on the manual clock, awaited to its end. */
async function recheck(clock: ManualClock, client: GatewayClient): Promise<void> {
  clock.advance(META_RECHECK_MS - 1);
  await client.recheckMeta();
}

describe('the leg count follows /meta', () => {
  it('adds legs on a scale-up, keeps them on a failed read, drains removed ones on a scale-down', async () => {
    const { gw, client, clock, events, openLegs } = await setUp(4, 16);
    await until(() => openLegs().length === 4 && gw.helloCount.total === 4, '4 legs');

    gw.setWorkers(8);
    await recheck(clock, client);
    await until(() => openLegs().length === 8 && gw.helloCount.total >= 8, '8 legs after the scale-up');
    // The 4 existing legs were not re-dialed: only the new ones said hello.
    await new Promise((r) => setTimeout(r, 200));
    expect(gw.helloCount.total).toBe(8);
    expect(client.plan).toMatchObject({ workers: 8, indices: [0, 1, 2, 3, 4, 5, 6, 7] });
    expect(events.some((e) => /gateway worker count 4 -> 8: 4 leg\(s\) added \[4,5,6,7\]/.test(e))).toBe(true);

    // A transient failure (and a useless answer) keeps the current count.
    gw.setMeta({ status: 502, body: 'bad gateway' });
    await recheck(clock, client);
    gw.setMeta({ status: 200, body: '{"workers":"eight"}' });
    await recheck(clock, client);
    expect(client.plan?.workers).toBe(8);
    expect(openLegs()).toHaveLength(8);

    gw.setMeta(null);
    gw.setWorkers(2);
    await recheck(clock, client);
    await until(() => openLegs().length === 2, 'the removed legs drained');
    expect(openLegs()).toEqual([0, 1]);
    expect(client.snapshot().map((l) => l.index)).toEqual([0, 1]);
  }, 60_000);

  it('clamps the count to 64 and reads no more than a few KiB of the body', async () => {
    const body = (text: string): ReturnType<FetchLike> => Promise.resolve({ ok: true, status: 200, json: async () => JSON.parse(text) as unknown, body: new Blob([text]).stream() });
    expect(await readGatewayWorkers('wss://gw.example/gw', () => body('{"workers":1e8}'))).toBe(MAX_GATEWAY_WORKERS);
    expect(await readGatewayWorkers('wss://gw.example/gw', () => body('{"workers":3.7}'))).toBe(3);
    await expect(readGatewayWorkers('wss://gw.example/gw', () => body('{"workers":0}'))).rejects.toThrow(/without a usable "workers" count/);
    await expect(readGatewayWorkers('wss://gw.example/gw', () => body('{"__proto__":{"workers":9}}'))).rejects.toThrow(/without a usable/);
    // An endless body (a 2 GB answer) is cut at the cap, not buffered.
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        sent += 65_536;
        c.enqueue(new Uint8Array(65_536).fill(32));
      },
    });
    await expect(readGatewayWorkers('wss://gw.example/gw', async () => ({ ok: true, status: 200, json: async () => ({}), body: endless }))).rejects.toThrow(/larger than 4096 bytes/);
    expect(sent).toBeLessThan(1_000_000);
  });
});

describe('load heartbeats', () => {
  it("pushes on request start and end, a burst of 64 as at most two frames per leg, with the serve's kv", async () => {
    const clock = new ManualClock();
    const load = new WorkerLoad(clock);
    const kv: KvLoad = { used: 4096, reqs: 3, waiting: 0, pending: 0, ranks: 1, limit: 65_536, frac: 0.0625 };
    load.kvSource = () => kv;
    const { gw, client, openLegs } = await setUp(8, 64, load, clock);
    load.listen(() => client.loadChanged());
    await until(() => openLegs().length === 8 && gw.helloCount.total === 8 && client.liveLegs === 8, '8 legs');
    const heartbeats = () => gw.frames.filter((f) => (f as { type: string }).type === 'heartbeat') as Array<{ inflight: number; kv?: KvLoad }>;
    expect(heartbeats()).toHaveLength(0);

    for (let i = 0; i < 64; i++) load.start();
    await until(() => heartbeats().length === 8, 'the leading push on every leg');
    clock.advance(LOAD_PUSH_MS);
    await until(() => heartbeats().length === 16, 'the trailing push on every leg');
    await new Promise((r) => setTimeout(r, 200));
    clock.advance(LOAD_PUSH_MS * 5);
    await new Promise((r) => setTimeout(r, 200));
    expect(heartbeats()).toHaveLength(16);
    expect(
      heartbeats()
        .slice(8)
        .every((h) => h.inflight === 64),
    ).toBe(true);
    expect(heartbeats()[0]!.kv).toEqual(kv);

    // The end of a request is pushed too (the gateway frees the slot at once).
    clock.advance(LOAD_PUSH_MS);
    load.done();
    await until(() => heartbeats().length === 24, 'the push after a request ended');
    expect(
      heartbeats()
        .slice(16)
        .every((h) => h.inflight === 63),
    ).toBe(true);
  }, 60_000);
});
