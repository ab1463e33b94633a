// The service around the tick: its own timer loop, the watchdog, the snapshot and the SQLite history.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { systemClock } from '../../../electron/engine/lib/clock.ts';
import { Database } from '../../../electron/engine/store/database.ts';
import { SqliteValidatorHistory } from '../../../electron/engine/validator/history.ts';
import type { ValidatorSnapshot } from '../../../shared/validator.ts';
import { harnessPerTest, MINER_A, STRANGER } from './harness.ts';
import type { MemoryChain } from '../../doubles/memory-chain.ts';

let db: Database | null = null;
afterEach(() => {
  db?.close();
  db = null;
});
// Registered after the database's hook: vitest runs after-hooks in reverse, so each service stops before its database closes.
const harness = harnessPerTest();

describe('validator service', () => {
  it('runs ticks on its own timer, publishes rising snapshots and records each tick', async () => {
    const h = await harness({ pollMs: 20 });
    h.provider.publish(4, [[MINER_A, 1]]);
    const seen: ValidatorSnapshot[] = [];
    h.svc.onDidChange((s) => seen.push(s));
    h.svc.start();
    await vi.waitFor(() => expect(h.history.recentTicks(10).length).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
    await h.svc.stop();
    const ticks = h.history.recentTicks(10);
    expect(ticks.at(-1)?.outcome).toBe('applied');
    expect(ticks[0]?.outcome).toBe('skipped:too-soon');
    expect(h.chain.landed()).toHaveLength(1);
    const versions = seen.map((s) => s.version);
    expect([...versions].sort((a, b) => a - b)).toEqual(versions);
    const snap = h.svc.snapshot();
    expect(snap.status).toBe('stopped');
    expect(snap.lastVerified?.epochIndex).toBe(4);
    expect(snap.applied).toMatchObject({ epochIndex: 4, block: 10_000 });
    expect(snap.nextResubmit).toMatchObject({ block: 10_120, at: h.now() + 120 * 12_000 });
    expect(snap.provider.health).toBe('ok');
    expect(snap.chain).toMatchObject({ health: 'ok', block: 10_000 });
    expect(snap.neuron).toMatchObject({ validatorPermit: true, stakeRao: '5000000000', activityCutoff: 5000 });
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap);
  });

  it('restarts a wedged loop when no tick completes within the stall limit', async () => {
    // The watchdog measures real elapsed time here, not the harness's hand-moved clock.
    const h = await harness({ pollMs: 20, stallMs: 150, watchdogCheckMs: 25, clock: systemClock });
    h.provider.publish(4, [[MINER_A, 1]]);
    h.chain.hangBlockNumber = true;
    // As the engine hands them out (chain/shared-connections.ts): close() returns a lease, discard() drops the connection.
    let discards = 0;
    const open = h.chain.open.bind(h.chain);
    h.chain.open = async () => {
      const port = await open();
      return Object.assign(port, {
        discard: async () => {
          discards++;
          await port.close();
        },
      });
    };
    h.svc.start();
    // Under load a restart can come before the hung tick even reached the chain; the next one closes its connection.
    await vi.waitFor(
      () => {
        expect(h.svc.snapshot().watchdogRestarts).toBeGreaterThanOrEqual(1);
        expect(h.chain.closes).toBeGreaterThanOrEqual(1);
      },
      { timeout: 10_000 },
    );
    expect(h.logs.some((l) => l.includes('[health] no completed tick'))).toBe(true);
    // The wedged connection is dropped for every user, not only handed back.
    expect(discards).toBeGreaterThanOrEqual(1);
    expect(h.chain.landed()).toHaveLength(0);
    h.chain.hangBlockNumber = false;
    await vi.waitFor(() => expect(h.chain.landed()).toHaveLength(1), { timeout: 10_000 });
    await h.svc.stop();
    expect(h.stateJson()).toMatchObject({ last_applied: 4 });
  });

  it('keeps ticks and submissions in SQLite across restarts', async () => {
    const file = join((await import('node:os')).tmpdir(), `engy-vhist-${process.pid}-${Date.now()}.sqlite`);
    db = new Database(file);
    const h = await harness({ history: new SqliteValidatorHistory(db) });
    h.provider.publish(4, [
      [MINER_A, 3],
      [STRANGER, 1],
    ]);
    await h.svc.runOnce();
    h.chain.rejectNext = { ok: false, kind: 'pool', code: 'Custom:6', message: 'SettingWeightsTooFast', extrinsicHash: '0xabc' };
    h.advance(120);
    await h.svc.runOnce();
    db.close();
    db = new Database(file);
    const again = new SqliteValidatorHistory(db);
    expect(db.version('validator')).toBe(1);
    const subs = again.recentSubmissions(10);
    expect(subs).toHaveLength(2);
    expect(subs[1]).toMatchObject({ ok: true, kind: 'fresh', epochIndex: 4, block: 10_000, droppedShare: 0.25, uids: [h.chain.uids.get(MINER_A)], weights: [65535] });
    expect(subs[1]?.extrinsicHash).toMatch(/^0x/);
    expect(subs[0]).toMatchObject({ ok: false, errorCode: 'Custom:6', extrinsicHash: '0xabc', includedBlock: null });
    expect(again.recentTicks(10).map((t) => t.outcome)).toEqual(['submit-failed', 'applied']);
  });

  it('never runs two ticks at once: a second request joins the running one', async () => {
    const h = await harness();
    h.provider.publish(4, [[MINER_A, 1]]);
    const [a, b] = await Promise.all([h.svc.runOnce(), h.svc.runOnce()]);
    expect(a).toBe(b);
    expect(h.chain.submissions).toHaveLength(1);
    expect(h.history.recentTicks(10)).toHaveLength(1);
  });

  it('warns in plain words about a missing permit and an inactive validator', async () => {
    const h = await harness();
    h.provider.publish(4, [[MINER_A, 1]]);
    h.chain.permits.delete(h.validator.address);
    h.chain.lastUpdate.set(h.chain.uids.get(h.validator.address)!, 1000);
    const r = await h.svc.runOnce();
    expect(r.tick.outcome).toBe('submit-failed');
    const w = h.svc.snapshot().warnings.join(' | ');
    expect(w).toContain('no validator permit');
    expect(w).toContain('past the activity cutoff');
    expect(h.svc.snapshot().neuron?.blocksSinceUpdate).toBe(9000);
  });

  it('reads a block time it could not read again on the next contact instead of pre-gating on 12 s (issue 32 item 9)', async () => {
    // A young chain: too few blocks to measure on the first contact, 100 ms blocks afterwards.
    let blockMs: number | null = null;
    let chain: MemoryChain | null = null;
    const h = await harness({
      openChain: async () => {
        const port = await chain!.open();
        return Object.assign(Object.create(port) as typeof port, { blockTimeMs: async () => blockMs });
      },
    });
    chain = h.chain;
    h.provider.publish(4, [[MINER_A, 1]]);
    expect((await h.svc.runOnce()).blockMs).toBe('unreadable');
    const opens = h.chain.opens;
    // 30 s later on the project's clock: 300 blocks of a 100 ms chain. A 12 s guess would not look for 19 minutes.
    blockMs = 100;
    h.chain.block += 300;
    h.advanceMs(30_000);
    const next = await h.svc.runOnce();
    expect(h.chain.opens).toBe(opens + 1);
    expect(next.blockMs).toBe(100);
    expect(next.tick.outcome).toBe('resubmitted');
    // Measured now: the pre-gate follows the chain's pace (120 blocks = 12 s) and skips 5 s later.
    h.advanceMs(5_000);
    expect((await h.svc.runOnce()).tick.outcome).toBe('skipped:too-soon');
    expect(h.chain.opens).toBe(opens + 1);
  });
});
