import { describe, expect, it } from 'vitest';
import { legPlanWarning, metaUrl, planLegs, readGatewayWorkers, workerUrl } from '../../../electron/engine/miner/leg-plan.ts';
import { defaultWorkerName, newWorkerId } from '../../../electron/engine/miner/identity.ts';

describe('leg plan (PROTOCOL 3)', () => {
  it('opens one leg per worker at floor(total / N) when total >= N', () => {
    expect(planLegs(8, 26)).toEqual({ workers: 8, indices: [0, 1, 2, 3, 4, 5, 6, 7], perLeg: 3, total: 26 });
  });

  it('opens `total` legs at 1 each on a random subset when total < N', () => {
    const seen = new Set<string>();
    let seed = 1;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < 20; i++) {
      const p = planLegs(8, 3, random);
      expect(p.perLeg).toBe(1);
      expect(p.indices).toHaveLength(3);
      expect(new Set(p.indices).size).toBe(3);
      seen.add(p.indices.join(','));
    }
    // Never always 0..k-1.
    expect(seen.size).toBeGreaterThan(1);
  });

  it('says plainly when fewer than 8 legs will be live', () => {
    expect(legPlanWarning(planLegs(8, 5))).toMatch(/only 5 of the 8 legs/);
    expect(legPlanWarning(planLegs(8, 16))).toMatch(/2 per leg/);
    expect(legPlanWarning(planLegs(8, 24))).toBeNull();
  });

  it('builds worker and meta URLs', () => {
    expect(workerUrl('wss://api.engy.ai/gw', 3, 8)).toBe('wss://api.engy.ai/gw/3');
    expect(workerUrl('wss://api.engy.ai/gw/', 0, 1)).toBe('wss://api.engy.ai/gw');
    expect(metaUrl('wss://api.engy.ai/gw')).toBe('https://api.engy.ai/gw/meta');
    expect(metaUrl('ws://127.0.0.1:9/gw')).toBe('http://127.0.0.1:9/gw/meta');
  });

  it('fails loudly when /meta is unreadable instead of dialing one leg', async () => {
    const down = async () => {
      throw new Error('ECONNREFUSED');
    };
    await expect(readGatewayWorkers('ws://127.0.0.1:1/gw', down)).rejects.toThrow(/not dialing a single leg/);
    const bad = async () => ({ ok: true, status: 200, json: async () => ({ workers: 0 }) });
    await expect(readGatewayWorkers('ws://x/gw', bad)).rejects.toThrow(/usable "workers"/);
    const good = async () => ({ ok: true, status: 200, json: async () => ({ workers: 8 }) });
    await expect(readGatewayWorkers('ws://x/gw', good)).resolves.toBe(8);
  });
});

describe('worker identity', () => {
  it('derives a stable worker name from host, model and serve URLs', () => {
    const a = defaultWorkerName('box', 'qwen3.6-35b-a3b', ['http://127.0.0.1:8000']);
    expect(a).toMatch(/^ins-[0-9a-f]{12}$/);
    expect(defaultWorkerName('box', 'qwen3.6-35b-a3b', ['http://127.0.0.1:8000'])).toBe(a);
    expect(defaultWorkerName('box', 'qwen3.6-35b-a3b', ['http://127.0.0.1:8001'])).not.toBe(a);
  });

  it('mints a fresh random worker id', () => {
    expect(newWorkerId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newWorkerId()).not.toBe(newWorkerId());
  });
});
