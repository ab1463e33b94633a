// Issue 32 item 1 (the health gate's rules) and item 3 (the `kv` read): a refused or non-200
// serve withdraws at once, timeouts only twice over with a silent scheduler (or a 120 s stall),
// two good probes bring the legs back; `/get_load` bodies are read defensively.
import { describe, expect, it } from 'vitest';
import { HealthGate, probeHealth, readKv, type HealthFetch } from '../../../electron/engine/miner/serve-health.ts';
import { ManualClock } from '../../doubles/ops/update-driver-double.ts';

const OK = { state: 'ok' as const, cause: null };
const TIMEOUT = { state: 'timeout' as const, cause: "the serve's /health gave no answer within 8 s" };
const DEAD = { state: 'dead' as const, cause: 'the serve cannot be reached: connection refused' };

function answering(routes: Record<string, unknown>): HealthFetch {
  return async (url) => {
    const path = new URL(url).pathname;
    if (!(path in routes)) return { status: 404, json: async () => ({}) };
    const v = routes[path];
    return { status: 200, json: async () => (typeof v === 'string' ? (JSON.parse(v) as unknown) : v) };
  };
}

describe('health gate', () => {
  it('withdraws at once on a dead serve and returns after two good probes in a row', async () => {
    const g = new HealthGate(new ManualClock(), async () => false);
    expect(await g.update(OK)).toBe(false);
    expect(await g.update(DEAD)).toBe(true);
    expect(g.verdict).toMatchObject({ withdrawn: true, cause: DEAD.cause });
    expect(await g.update(OK)).toBe(true);
    expect(await g.update(DEAD)).toBe(true); // a relapse restarts the streak
    expect(await g.update(OK)).toBe(true);
    expect(await g.update(OK)).toBe(false);
    expect(g.verdict).toEqual({ withdrawn: false, cause: null, since: null });
  });

  it('a single /health timeout is not a fault; two are, when /get_load is silent too', async () => {
    const g = new HealthGate(new ManualClock(), async () => false);
    expect(await g.update(TIMEOUT)).toBe(false);
    expect(await g.update(TIMEOUT)).toBe(true);
    expect(g.verdict.cause).toMatch(/2 times\) and its scheduler \(\/get_load\) is silent too/);
  });

  it('rides out a /health stall while the scheduler answers, up to 120 s', async () => {
    const clock = new ManualClock();
    const g = new HealthGate(clock, async () => true);
    for (let t = 0; t < 115_000; t += 5_000) {
      expect(await g.update(TIMEOUT)).toBe(false);
      clock.advance(5_000);
    }
    clock.advance(5_000);
    expect(await g.update(TIMEOUT)).toBe(true);
    expect(g.verdict.cause).toMatch(/stalled for 1[2-9]\d s although \/get_load answers/);
  });

  it('never withdraws a serve that is streaming our requests, however long /health stalls', async () => {
    const clock = new ManualClock();
    const g = new HealthGate(
      clock,
      async () => false,
      () => true,
    );
    for (let t = 0; t < 300_000; t += 5_000) {
      expect(await g.update(TIMEOUT)).toBe(false);
      clock.advance(5_000);
    }
    // A refused connection still withdraws at once.
    expect(await g.update(DEAD)).toBe(true);
  });
});

describe('probes', () => {
  it('names each outcome', async () => {
    expect(await probeHealth('http://s', async () => ({ status: 200, json: async () => ({}) }))).toEqual(OK);
    expect(await probeHealth('http://s', async () => ({ status: 503, json: async () => ({}) }))).toEqual({ state: 'dead', cause: "the serve's /health answered 503" });
    const refused = Object.assign(new Error('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    expect((await probeHealth('http://s', async () => Promise.reject(refused))).state).toBe('dead');
    const timeout = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    expect((await probeHealth('http://s', async () => Promise.reject(timeout), 8000)).state).toBe('timeout');
  });

  it('sums /get_load over the schedulers against the pool size', async () => {
    const f = answering({
      '/get_load': [
        { num_tokens: 100, num_reqs: 2, num_waiting_reqs: 1, num_pending_tokens: 5 },
        { num_tokens: 300, num_reqs: 1 },
      ],
      '/get_server_info': { max_total_num_tokens: 1000, dcp_size: 1 },
    });
    expect(await readKv('http://s', f, new Map())).toEqual({ used: 400, reqs: 3, waiting: 1, pending: 5, ranks: 2, limit: 2000, frac: 0.2 });
  });

  it('reads hostile bodies without trusting them', async () => {
    expect(await readKv('http://s', answering({ '/get_load': { workers: 1 } }), new Map())).toBeNull();
    expect(await readKv('http://s', answering({}), new Map())).toBeNull();
    const hostile = answering({
      '/get_load': '[{"__proto__": {"num_tokens": 5}, "num_tokens": "9", "num_reqs": -4, "num_waiting_reqs": 1e400}, 7, null, [1], {"num_tokens": 1e300}]',
      '/get_server_info': '{"max_total_num_tokens": "lots", "__proto__": {"dcp_size": 8}}',
    });
    const kv = await readKv('http://s', hostile, new Map());
    expect(kv).toEqual({ used: Number.MAX_SAFE_INTEGER, reqs: 0, waiting: 0, pending: 0, ranks: 2 });
    expect(({} as Record<string, unknown>).num_tokens).toBeUndefined();
    // An oversized answer is not a load report.
    const big = answering({ '/get_load': [{ num_tokens: 1, pad: 'x'.repeat(300 * 1024) }] });
    expect(await readKv('http://s', big, new Map())).toBeNull();
  });
});
