// PROTOCOL 8 failure paths: provider outages and hostile payloads fall back to the cache on the same
// cadence, a refused extrinsic changes nothing, a corrupt state is never submitted, standby comes last.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ProviderMode } from '../../doubles/provider.ts';
import { harnessPerTest, MINER_A, MINER_B, OWNER, STRANGER, type Harness } from './harness.ts';

const harness = harnessPerTest();

async function landedEpoch4(h: Harness): Promise<string> {
  h.provider.publish(4, [
    [MINER_A, 1],
    [MINER_B, 3],
  ]);
  const r = await h.svc.runOnce();
  expect(r.tick.outcome).toBe('applied');
  return readFileSync(h.statePath, 'utf8');
}

describe('validator fallbacks', () => {
  it('resubmits the cached vector on the same cadence through a provider outage, and the recovered provider takes over', async () => {
    const h = await harness();
    await landedEpoch4(h);
    const cachedVector = h.chain.landed()[0]!;
    h.provider.mode = 'outage-503';
    h.advance(100);
    const early = await h.svc.runOnce();
    expect(early.tick.outcome).toBe('skipped:too-soon');
    expect(h.chain.landed()).toHaveLength(1);
    h.advance(20);
    expect((await h.svc.runOnce()).tick.outcome).toBe('resubmitted:cached');
    await h.provider.refuse(); // connection refused now
    h.advance(60);
    expect((await h.svc.runOnce()).tick.outcome).toBe('skipped:too-soon');
    h.advance(60);
    const refused = await h.svc.runOnce();
    expect(refused.tick.outcome).toBe('resubmitted:cached');
    expect(refused.provider.error).toMatch(/cannot reach the provider/);
    expect(h.chain.landed().map((s) => s.block)).toEqual([10_000, 10_120, 10_240]);
    expect(h.chain.submissions.every((s) => s.outcome.ok)).toBe(true);
    for (const s of h.chain.landed()) expect([s.uids, s.weights]).toEqual([cachedVector.uids, cachedVector.weights]);

    await h.provider.resume();
    h.provider.mode = 'ok';
    h.provider.publish(5, [[MINER_B, 1]]);
    h.advance(100); // a new epoch goes at once, but not before the chain's rate limit
    const back = await h.svc.runOnce();
    expect(back.tick.outcome).toBe('applied');
    expect(h.chain.landed().at(-1)?.uids).toEqual([h.chain.uids.get(MINER_B)]);
    expect(h.stateJson()).toMatchObject({ last_applied: 5 });
  });

  it('refuses hostile payloads with the right reason and keeps the cache on chain', async () => {
    const h = await harness();
    await landedEpoch4(h);
    h.provider.publish(5, [
      [MINER_B, 1],
      [MINER_A, 1],
    ]);
    const cases: Array<[ProviderMode, RegExp]> = [
      ['tampered', /\(digest\)/],
      ['tampered-redigested', /\(signature\)/],
      ['wrong-key', /\(signature\)/],
      ['oversized', /cap/],
      ['oversized-chunked', /cap/],
      ['garbage', /not JSON/],
    ];
    for (const [mode, why] of cases) {
      h.provider.mode = mode;
      h.advance(120);
      const r = await h.svc.runOnce();
      expect(r.tick.outcome, mode).toBe('resubmitted:cached');
      expect(r.tick.epochIndex).toBe(4);
      expect(h.logs.filter((l) => l.includes('[sync]')).at(-2), mode).toMatch(why);
    }
    expect(h.stateJson()).toMatchObject({ last_applied: 4 });
    const epoch4 = h.chain.landed()[0]!;
    for (const s of h.chain.landed()) expect(s.weights).toEqual(epoch4.weights);
  });

  it('submits the signed result_json vector, never the unsigned display weights', async () => {
    const h = await harness();
    h.provider.mode = 'display-lies';
    h.provider.publish(4, [
      [MINER_A, 1],
      [MINER_B, 1],
    ]);
    expect((await h.svc.runOnce()).tick.outcome).toBe('applied');
    expect(h.chain.landed()[0]?.uids).toEqual([h.chain.uids.get(MINER_A), h.chain.uids.get(MINER_B)]);
  });

  it('advances nothing when the chain refuses the extrinsic, and retries on the next tick', async () => {
    const h = await harness();
    const before = await landedEpoch4(h);
    h.advance(100);
    h.provider.publish(5, [[MINER_B, 1]]);
    h.chain.rejectNext = { ok: false, kind: 'dispatch', code: 'NeuronNoValidatorPermit', message: 'the hotkey has no validator permit' };
    const r = await h.svc.runOnce();
    expect(r.tick.outcome).toBe('submit-failed');
    expect(r.tick.detail).toContain('NeuronNoValidatorPermit');
    expect(readFileSync(h.statePath, 'utf8')).toBe(before);
    expect(h.history.recentSubmissions(1)[0]).toMatchObject({ ok: false, errorCode: 'NeuronNoValidatorPermit', epochIndex: 5 });
    const retry = await h.svc.runOnce();
    expect(retry.tick.outcome).toBe('applied');
    expect(h.stateJson()).toMatchObject({ last_applied: 5 });
  });

  it('never submits a corrupt cached vector', async () => {
    const h = await harness();
    await landedEpoch4(h);
    const s = JSON.parse(readFileSync(h.statePath, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      h.statePath,
      JSON.stringify({
        ...s,
        cached_weights: [
          [MINER_A, 70_000],
          [MINER_B, true],
        ],
      }),
    );
    h.provider.mode = 'outage-503';
    h.advance(500);
    const r = await h.svc.runOnce();
    expect(r.tick.outcome).toBe('fetch-failed');
    expect(r.tick.detail).toContain('no cached vector');
    expect(r.warnings.join(' ')).toContain('cached_weights');
    writeFileSync(h.statePath, '{"last_applied": 4, "cached_weigh');
    expect((await h.svc.runOnce()).tick.outcome).toBe('fetch-failed');
    expect(h.chain.submissions).toHaveLength(1);
  });

  it('a payload that lands nothing falls back to the cache, then to a burn, and the standby is never cached', async () => {
    const h = await harness();
    await landedEpoch4(h);
    const scored = h.stateJson();
    h.advance(100);
    h.provider.publish(5, [[STRANGER, 100]]);
    const r = await h.svc.runOnce();
    expect(r.tick.outcome).toBe('standby:cached');
    expect(h.chain.landed().at(-1)?.weights).toEqual(h.chain.landed()[0]?.weights);
    expect(h.stateJson()).toMatchObject({ last_applied: 5, cached_weights: scored?.cached_weights, cached_digest: scored?.cached_digest });

    // The cached miners deregister: nothing landable remains but the owner.
    h.chain.replace(MINER_A, 'gone-a');
    h.chain.replace(MINER_B, 'gone-b');
    h.advance(120);
    const burn = await h.svc.runOnce();
    expect(burn.tick.outcome).toBe('standby:burn');
    expect(h.chain.landed().at(-1)).toMatchObject({ uids: [h.chain.uids.get(OWNER.address)], weights: [65535] });
    expect(h.stateJson()).toMatchObject({ last_applied: 5, cached_weights: scored?.cached_weights });
  });

  it('burns when nothing was ever landed, and says so when even the owner is missing', async () => {
    const h = await harness();
    h.provider.publish(4, [[STRANGER, 1]]);
    expect((await h.svc.runOnce()).tick.outcome).toBe('standby:burn');
    expect(h.stateJson()).toMatchObject({ last_applied: 4, cached_weights: null, cached_digest: null });
    await h.close();

    const ownerGone = await harness();
    ownerGone.chain.replace(OWNER.address, 'someone-else');
    ownerGone.provider.publish(4, [[STRANGER, 1]]);
    const r = await ownerGone.svc.runOnce();
    expect(r.tick.outcome).toBe('submit-failed');
    expect(ownerGone.chain.submissions).toHaveLength(0);
    expect(ownerGone.stateJson()).toBeNull();
  });

  it('submits a single-recipient vector to a non-owner but warns', async () => {
    const h = await harness();
    h.provider.publish(4, [
      [MINER_A, 65535],
      [MINER_B, 0],
    ]);
    const r = await h.svc.runOnce();
    expect(r.tick.outcome).toBe('applied');
    expect(r.warnings.join(' ')).toMatch(/all its weight to .* not the subnet owner/);
    expect(h.svc.snapshot().warnings.join(' ')).toContain('not the subnet owner');
    h.provider.publish(5, [[OWNER.address, 65535]]);
    h.advance(101);
    const burn = await h.svc.runOnce();
    expect(burn.tick.outcome).toBe('applied');
    expect(burn.warnings.join(' ')).not.toContain('not the subnet owner');
  });

  it('explains commit-reveal instead of failing silently, and a chain outage leaves the state alone', async () => {
    const h = await harness();
    h.provider.publish(4, [[MINER_A, 1]]);
    h.chain.commitRevealEnabled = true;
    const cr = await h.svc.runOnce();
    expect(cr.tick.outcome).toBe('submit-failed');
    expect(cr.tick.detail).toMatch(/commit-reveal/);
    h.chain.commitRevealEnabled = false;
    h.chain.down = true;
    const down = await h.svc.runOnce();
    expect(down.tick.outcome).toBe('chain-failed');
    expect(h.svc.snapshot().chain.health).toBe('down');
    expect(h.chain.submissions).toHaveLength(0);
    expect(h.stateJson()).toBeNull();
  });
});
