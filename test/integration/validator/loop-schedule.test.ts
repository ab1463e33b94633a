// PROTOCOL 8 schedule, over real sockets (provider double) against the memory chain.
import { describe, expect, it, vi } from 'vitest';
import { harnessPerTest, MINER_A, MINER_B, MINER_C } from './harness.ts';

const harness = harnessPerTest();

describe('validator schedule', () => {
  it('submits a new epoch at once, uids ascending, values as the SDK sends them (max-upscaled onto 65535), and the heartbeat signed', async () => {
    const h = await harness();
    const p = h.provider.publish(4, [
      [MINER_B, 300],
      [MINER_A, 100],
    ]);
    const r = await h.svc.runOnce();
    expect(r.tick.outcome).toBe('applied');
    const [sub] = h.chain.landed();
    const uidA = h.chain.uids.get(MINER_A)!;
    const uidB = h.chain.uids.get(MINER_B)!;
    expect(sub?.uids).toEqual([uidA, uidB]);
    // engy's rescale gives [16383, 49152]; the SDK max-upscales that to what the reference's extrinsic carries.
    expect(sub?.weights).toEqual([21844, 65535]);
    expect(sub?.signer).toBe(h.validator.address);
    expect(h.stateJson()).toMatchObject({
      last_applied: 4,
      last_submit_block: 10_000,
      cached_digest: p.digest,
      cached_weights: [
        [MINER_B, 300],
        [MINER_A, 100],
      ],
    });
    await vi.waitFor(() => expect(h.provider.heartbeats.length).toBe(1), { timeout: 10_000 });
    const hb = h.provider.heartbeats[0]!;
    expect(hb.valid).toBe(true);
    expect(hb.hotkey).toBe(h.validator.address);
    expect(hb.json).toEqual({ v: 1, version: 'engy-panel test', synced_epoch: 4, consensus: { epoch_index: 4, digest: p.digest } });
    expect(h.logs.some((l) => l.includes('[tick] applied'))).toBe(true);
  });

  it('pre-gates without touching the chain, then resubmits the same epoch every 120 blocks', async () => {
    const h = await harness();
    h.provider.publish(4, [[MINER_A, 1]]);
    await h.svc.runOnce();
    const callsAfterFirst = h.chain.calls.length;
    const opensAfterFirst = h.chain.opens;

    h.advance(25); // 5 min: well under 80% of 24 min
    const early = await h.svc.runOnce();
    expect(early.tick.outcome).toBe('skipped:too-soon');
    expect(early.tick.detail).toMatch(/next resubmit in ~19 min \(not contacting the chain yet\)/);
    expect(h.chain.calls.length).toBe(callsAfterFirst);
    expect(h.chain.opens).toBe(opensAfterFirst);

    h.advance(75); // block +100: past the pre-gate, short of the interval
    const close = await h.svc.runOnce();
    expect(close.tick.outcome).toBe('skipped:too-soon');
    expect(close.tick.detail).toContain('next resubmit in 20 blocks');
    expect(h.chain.opens).toBe(opensAfterFirst + 1);
    expect(h.chain.landed()).toHaveLength(1);

    h.advance(20);
    const due = await h.svc.runOnce();
    expect(due.tick.outcome).toBe('resubmitted');
    expect(h.chain.landed()).toHaveLength(2);
    expect(h.stateJson()).toMatchObject({ last_applied: 4, last_submit_block: 10_120 });
  });

  it('submits a newer epoch at once even inside the interval', async () => {
    const h = await harness();
    h.provider.publish(4, [[MINER_A, 1]]);
    await h.svc.runOnce();
    h.advance(101); // the rate limit has passed, the 120-block interval has not
    h.provider.publish(5, [[MINER_B, 1]]);
    const r = await h.svc.runOnce();
    expect(r.tick.outcome).toBe('applied');
    expect(h.chain.landed().map((s) => s.uids)).toEqual([[h.chain.uids.get(MINER_A)], [h.chain.uids.get(MINER_B)]]);
  });

  it('never submits a replayed older epoch, even long after the interval', async () => {
    const h = await harness();
    const old = [[MINER_C, 9]] as Array<[string, number]>;
    h.provider.publish(4, old);
    h.provider.publish(5, [[MINER_A, 1]]);
    await h.svc.runOnce();
    expect(h.stateJson()).toMatchObject({ last_applied: 5 });
    h.provider.mode = 'replay';
    for (let i = 0; i < 3; i++) {
      h.advance(130);
      const r = await h.svc.runOnce();
      expect(r.tick.outcome).toBe('resubmitted:cached');
      expect(r.tick.epochIndex).toBe(5);
    }
    const uidC = h.chain.uids.get(MINER_C)!;
    expect(h.chain.submissions.some((s) => s.uids.includes(uidC))).toBe(false);
    expect(h.stateJson()).toMatchObject({ last_applied: 5 });
    expect(h.logs.some((l) => l.includes('older than the applied epoch 5'))).toBe(true);
  });

  it('differs on purpose: under a replay the cached vector goes again only on its cadence, so nothing it does can be punished (issue 32 item 7)', async () => {
    // The reference submits nothing while the provider replays an older epoch; this resubmits what
    // it last landed. On chain that is the same vector (weights do not expire), never inside the rate
    // limit, never anything the replay carried: it only keeps LastUpdate inside the activity cutoff.
    const h = await harness();
    h.provider.publish(4, [[MINER_C, 9]]);
    h.provider.publish(5, [
      [MINER_A, 1],
      [MINER_B, 3],
    ]);
    await h.svc.runOnce();
    const applied = h.chain.landed()[0]!;
    h.provider.mode = 'replay';
    for (let step = 0; step < 12; step++) {
      h.advance(30); // polls every 6 minutes: most of them too soon
      await h.svc.runOnce();
    }
    const landed = h.chain.landed();
    expect(landed.length).toBe(4);
    for (const s of landed) {
      expect({ uids: s.uids, weights: s.weights }).toEqual({ uids: applied.uids, weights: applied.weights });
    }
    for (let i = 1; i < landed.length; i++) expect(landed[i]!.block - landed[i - 1]!.block).toBeGreaterThanOrEqual(h.chain.weightsRateLimit + 20);
    expect(h.chain.submissions.every((s) => s.outcome.ok)).toBe(true);
    expect(h.stateJson()).toMatchObject({ last_applied: 5 });
  });

  it('falls back to the wall clock (120 x 12 s) when the block number is unavailable', async () => {
    const h = await harness();
    h.provider.publish(4, [[MINER_A, 1]]);
    await h.svc.runOnce();
    h.chain.blockUnavailable = true;
    h.advance(110); // 22 min by the clock
    const early = await h.svc.runOnce();
    expect(early.tick.outcome).toBe('skipped:too-soon');
    expect(early.tick.detail).toContain('by the wall clock');
    h.advanceMs(2 * 60_000 + 1);
    const due = await h.svc.runOnce();
    expect(due.tick.outcome).toBe('resubmitted');
    expect(h.chain.landed()).toHaveLength(2);
  });

  it('never resubmits faster than the chain rate limit plus margin, whatever is configured', async () => {
    const h = await harness({ resubmitBlocks: 30 });
    h.chain.weightsRateLimit = 100;
    h.provider.publish(4, [[MINER_A, 1]]);
    await h.svc.runOnce();
    h.advance(110);
    const r = await h.svc.runOnce();
    expect(r.tick.outcome).toBe('skipped:too-soon');
    expect(r.intervalBlocks).toBe(120);
    h.advance(10);
    expect((await h.svc.runOnce()).tick.outcome).toBe('resubmitted');
    expect(h.chain.submissions.every((s) => s.outcome.ok)).toBe(true);
  });

  it('sends the version key the chain requires and resolves uids fresh at every submit', async () => {
    const h = await harness();
    h.chain.weightsVersionKey = 7n;
    h.provider.publish(4, [
      [MINER_A, 1],
      [MINER_B, 1],
    ]);
    await h.svc.runOnce();
    expect(h.chain.landed()[0]?.versionKey).toBe(7n);
    // MINER_A's uid goes to a newcomer: the next submission must not weight the newcomer.
    const uidA = h.chain.uids.get(MINER_A)!;
    h.chain.replace(MINER_A, 'newcomer');
    h.advance(120);
    await h.svc.runOnce();
    const last = h.chain.landed()[1]!;
    expect(last.uids).toEqual([h.chain.uids.get(MINER_B)]);
    expect(last.uids).not.toContain(uidA);
    expect(h.history.recentSubmissions(1)[0]?.droppedShare).toBe(0.5);
  });
});
