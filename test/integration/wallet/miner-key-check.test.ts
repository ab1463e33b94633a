// A miner key is verified by one hello to the gateway double: admit for a known key, the gateway's
// own deny reason for an unknown one, and a plain sentence (never "fetch failed") when unreachable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { checkMinerKey, type MinerKeyCheckOptions } from '../../../electron/engine/wallet/miner-key-check.ts';
import { GatewayDouble } from '../../doubles/gateway/gateway-double.ts';

const GOOD = 'mk-known-to-the-gateway-0001';
const hw = { host: 'rig', cpus: 16, ram_gb: 64, gpu: 'NVIDIA GeForce RTX 4090', gpu_count: 2, gpu_mem_gb: 24, gpus: '2x NVIDIA GeForce RTX 4090', parallelism: 'dp' };
const base = (gatewayUrl: string): Omit<MinerKeyCheckOptions, 'key'> => ({ gatewayUrl, model: 'qwen3.6-35b-a3b', modelRoot: 'ab'.repeat(32), hw, versions: { 'engy-panel': 'test' }, timeoutMs: 5000 });

describe('miner key verified by one hello', () => {
  const gw = new GatewayDouble({ workers: 8, keys: [GOOD], probe: false, judgeAfterMs: 60_000 });
  let url: string;
  beforeAll(async () => {
    url = await gw.start();
  });
  afterAll(() => gw.stop());

  it('admits a key the gateway knows, on a throwaway worker name', async () => {
    const before = gw.helloCount.total;
    expect(await checkMinerKey({ ...base(url), key: GOOD })).toEqual({ state: 'admitted', reason: null });
    expect(gw.helloCount.total).toBe(before + 1);
  });

  it("denies an unknown key with the gateway's own reason", async () => {
    expect(await checkMinerKey({ ...base(url), key: 'mk-bogus-but-long-enough' })).toEqual({ state: 'denied', reason: 'unknown miner key' });
  });

  it('says in words when the gateway cannot be reached', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await checkMinerKey({ ...base(`ws://127.0.0.1:${port}/gw`), key: GOOD });
    expect(r.state).toBe('unreachable');
    expect(r.reason).toMatch(/nothing is listening/);
    expect(r.reason).not.toMatch(/fetch failed|ECONNREFUSED/);
    const offline = await checkMinerKey({ ...base('wss://gateway.invalid/gw'), key: GOOD });
    expect(offline.reason).toMatch(/offline|does not resolve|could not be looked up/);
    expect(offline.reason).not.toMatch(/ENOTFOUND|fetch failed/);
  });

  it('says so when /meta answers garbage instead of a worker count', async () => {
    const fetchGarbage = async () => ({ ok: true, status: 200, json: async () => ({ workers: '__proto__' }) });
    const r = await checkMinerKey({ ...base(url), key: GOOD, fetch: fetchGarbage });
    expect(r.state).toBe('unreachable');
    expect(r.reason).toContain('did not say how many workers');
  });
});
