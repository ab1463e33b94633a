// Earnings against the provider double: missing epochs are fetched by index, an outage is tracked
// (and explains what stays missing), a refused payload is never shown, τ comes with its arithmetic.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EarningsService, type EarningsChain } from '../../../electron/engine/earnings/earnings-service.ts';
import { earningsAlerts } from '../../../electron/engine/notify/alert-rules.ts';
import { Database } from '../../../electron/engine/store/database.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import { AppFailure } from '../../../shared/errors.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProviderDouble, type ProviderDouble } from '../../doubles/provider.ts';

const ME = '5Gme11111111111111111111111111111111111111111111';
const OTHER = '5Gother1111111111111111111111111111111111111111';
const OWNER = '5DXSBCCKH5ENuyHFNaAvtaMfbhEEWpjSJB4rzc4mJfsc1uvJ';

/** TEST DOUBLE: a chain that reports a fixed emission for uid 3 (incentive 50 %; `dividends` when it also validates). */
const chain = (dividends = 0, emissionRao = 36_000_000_000n): EarningsChain => ({
  neuron: async (_n, hotkey) => ({ hotkey, uid: 3, validatorPermit: false, lastUpdate: null, stakeRao: 0n }),
  earningsFacts: async (netuid, uid) => ({
    netuid,
    uid,
    block: 100,
    tempo: 360,
    incentive: 0.5,
    dividends,
    emissionRao,
    subnetTaoRao: 1n,
    subnetAlphaInRao: 1n,
    alphaPriceTao: 0.01,
    alphaPerDay: 720,
    taoPerDayAtSpot: 7.2,
  }),
  close: async () => undefined,
});

describe('earnings service', () => {
  let provider: ProviderDouble;
  let db: Database;
  let svc: EarningsService;

  beforeAll(async () => {
    provider = await startProviderDouble();
    db = new Database(':memory:');
    svc = new EarningsService(
      () => ({ hotkey: () => ME, providerUrl: provider.url, masterHotkey: provider.masterHotkey, netuid: 53, ownerHotkey: OWNER }),
      db,
      async () => chain(),
      silentLogger,
    );
  });
  afterAll(async () => {
    svc.dispose();
    db.close();
    await provider.close();
  });

  it('fetches the epochs it missed by index and projects τ with its arithmetic', async () => {
    for (const i of [1, 2, 3])
      provider.publish(
        i,
        [
          [ME, 49151],
          [OTHER, 16384],
        ],
        { miners: [{ hotkey: ME, tokens: 1000 * i, gate_reason: null }] },
      );
    const now = Date.UTC(2026, 0, 5);
    const s = await svc.refresh(now);
    expect(s.epochs.map((e) => e.epochIndex)).toEqual([3, 2, 1]);
    const e3 = s.epochs[0]!;
    expect(e3.weightShare).toBeCloseTo(0.75, 4);
    expect(e3.startMs).toBe(Date.UTC(2026, 0, 4));
    // 1 chain read: 36 α per tempo of 360 blocks (4320 s) -> my 1/120 α/s; the miner pool is twice that.
    expect(e3.projectedTao).toBeCloseTo((49151 / 65535) * (36 / 4320 / 0.5) * 86_400 * 0.01, 9);
    expect(e3.projectedNote).toMatch(/^75\.00 % x /);
    expect(s.gaps).toEqual([]);
    expect(s.sources.provider).toEqual({ ok: true, error: null, downSince: null });
    expect(s.estimatePerDay.tao).toBeGreaterThan(0);
  });

  /** A service of its own on a fresh database, over `open`'s chain; disposed after `run`. */
  const withService = async (open: () => Promise<EarningsChain>, run: (svc: EarningsService) => Promise<void>): Promise<void> => {
    const ownDb = new Database(':memory:');
    const own = new EarningsService(() => ({ hotkey: () => ME, providerUrl: provider.url, masterHotkey: provider.masterHotkey, netuid: 53, ownerHotkey: OWNER }), ownDb, open, silentLogger);
    try {
      await run(own);
    } finally {
      own.dispose();
      ownDb.close();
    }
  };

  it('times the emission by the measured block time of the chain, so a fast local chain is not read as finney', async () => {
    await withService(
      async () => ({ ...chain(), blockTimeMs: async () => 250 }),
      async (fast) => {
        const s = await fast.refresh(Date.UTC(2026, 0, 5));
        // 36 α per tempo of 360 blocks at 250 ms (90 s), where finney's 12 s blocks make it 4320 s.
        expect(s.epochs[0]!.projectedTao).toBeCloseTo((49151 / 65535) * (36 / 90 / 0.5) * 86_400 * 0.01, 6);
      },
    );
  });

  it('projects a hotkey that also validates from the miner half alone: its dividends are not counted as mining', async () => {
    // The same 36 α of mining per tempo, plus the whole validator half (dividends 1: another 72 α).
    await withService(
      async () => chain(1, 108_000_000_000n),
      async (both) => {
        const s = await both.refresh(Date.UTC(2026, 0, 5));
        // The miner half is 72 α per tempo as in the first test, so the projection is the same.
        expect(s.epochs[0]!.projectedTao).toBeCloseTo((49151 / 65535) * (36 / 4320 / 0.5) * 86_400 * 0.01, 9);
      },
    );
  });

  it('an outage is tracked and a refused payload is never shown', async () => {
    await provider.refuse();
    const down = await svc.refresh(Date.UTC(2026, 0, 5, 1));
    expect(down.sources.provider.ok).toBe(false);
    expect(down.outages[0]).toMatchObject({ source: 'provider', to: null });
    expect(down.epochs).toHaveLength(3); // kept from the database
    await provider.resume();
    provider.mode = 'tampered';
    provider.publish(4, [
      [OTHER, 40000],
      [ME, 25535],
    ]);
    const refused = await svc.refresh(Date.UTC(2026, 0, 5, 2));
    expect(refused.error).toMatch(/refused/);
    expect(refused.epochs.map((e) => e.epochIndex)).toEqual([3, 2, 1]);
    expect(refused.outages[0]!.to).toBe(Date.UTC(2026, 0, 5, 2));
    provider.mode = 'garbage';
    const garbage = await svc.refresh(Date.UTC(2026, 0, 5, 3));
    expect(garbage.epochs.map((e) => e.epochIndex)).toEqual([3, 2, 1]);
    provider.mode = 'ok';
    const back = await svc.refresh(Date.UTC(2026, 0, 5, 4));
    expect(back.epochs.map((e) => e.epochIndex)).toEqual([4, 3, 2, 1]);
  });

  it('says in words why the provider or the chain cannot be read: each URL once, no errno, no "fetch failed"', async () => {
    // A port nothing listens on: the provider is refused at once.
    const closed = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const port = (srv.address() as AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    const providerUrl = `http://127.0.0.1:${closed}`;
    const chainUrl = 'wss://chain.example.invalid:443';
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND chain.example.invalid'), { code: 'ENOTFOUND' });
    const failures: unknown[] = [
      new TypeError('fetch failed', { cause: dns }),
      new AppFailure(
        'chain-unreachable',
        `Could not reach the chain (${chainUrl}: the name does not resolve). Check the internet connection.`,
        'the name does not resolve: this machine looks offline, or the address is mistyped',
      ),
    ];
    for (const failure of failures) {
      const local = new Database(':memory:');
      const s = new EarningsService(
        () => ({ hotkey: () => ME, providerUrl, masterHotkey: provider.masterHotkey, netuid: 53, ownerHotkey: OWNER, chainUrl }),
        local,
        async () => {
          throw failure;
        },
        silentLogger,
      );
      try {
        const snap = await s.refresh(Date.UTC(2026, 0, 6));
        const words = [snap.error ?? '', snap.sources.provider.error ?? '', snap.sources.chain.error ?? ''];
        for (const w of words) {
          expect(w).not.toMatch(/fetch failed|ENOTFOUND|ECONNREFUSED|\.\.|getaddrinfo/);
        }
        expect(snap.error).toMatch(/^The provider at http:\/\/127\.0\.0\.1:\d+ could not be read: nothing is listening at that address\. /);
        expect(snap.error!.split(providerUrl)).toHaveLength(2);
        expect(snap.sources.provider.error).toBe('nothing is listening at that address');
        expect(snap.sources.chain.error).toBe('the name does not resolve: this machine looks offline, or the address is mistyped');
      } finally {
        s.dispose();
        local.close();
      }
    }
    // Only the chain down: its sentence names the chain once, with what to do.
    const onlyChain = new EarningsService(
      () => ({ hotkey: () => ME, providerUrl: provider.url, masterHotkey: provider.masterHotkey, netuid: 53, ownerHotkey: OWNER, chainUrl }),
      new Database(':memory:'),
      async () => {
        throw failures[1];
      },
      silentLogger,
    );
    const snap = await onlyChain.refresh(Date.UTC(2026, 0, 6));
    onlyChain.dispose();
    expect(snap.error).toBe(
      `The chain at ${chainUrl} could not be read: the name does not resolve: this machine looks offline, or the address is mistyped. On-chain emission is not shown until it answers; if this lasts, check the connection or choose another chain endpoint in Settings.`,
    );
  });
  it('asks again within a minute while the chain is down, so its outage alert closes soon after the chain is back', async () => {
    const local = new Database(':memory:');
    let up = false;
    const s = new EarningsService(
      () => ({ hotkey: () => ME, providerUrl: provider.url, masterHotkey: provider.masterHotkey, netuid: 53, ownerHotkey: OWNER }),
      local,
      async () => {
        if (!up) throw new AppFailure('chain-unreachable', 'Could not reach the chain.', 'nothing is listening at that address');
        return chain();
      },
      silentLogger,
    );
    try {
      expect(s.nextRefreshInMs(600_000)).toBe(600_000); // nothing known yet: the normal pace
      await s.refresh(Date.UTC(2026, 0, 7));
      expect(earningsAlerts(s.snapshot()).map((a) => a.key)).toContain('chain-outage');
      const first = s.nextRefreshInMs(600_000);
      const second = s.nextRefreshInMs(600_000);
      expect(first).toBeLessThanOrEqual(33_000);
      expect(second).toBeGreaterThan(first);
      for (let i = 0; i < 10; i++) expect(s.nextRefreshInMs(600_000)).toBeLessThanOrEqual(600_000);
      up = true;
      await s.refresh(Date.UTC(2026, 0, 7, 0, 1));
      expect(earningsAlerts(s.snapshot()).map((a) => a.key)).not.toContain('chain-outage');
      expect(s.nextRefreshInMs(600_000)).toBe(600_000);
      // Down again: the quick retries start over from 30 s.
      up = false;
      await s.refresh(Date.UTC(2026, 0, 7, 0, 2));
      expect(s.nextRefreshInMs(600_000)).toBeLessThanOrEqual(33_000);
    } finally {
      s.dispose();
      local.close();
    }
  });

  it('tells a deregistered hotkey from one that never registered, across a restart too', async () => {
    const regDb = new Database(':memory:');
    let uid: number | null = 7;
    const gone: EarningsChain = { ...chain(), neuron: async (_n, hotkey) => ({ hotkey, uid, validatorPermit: false, lastUpdate: null, stakeRao: 0n }) };
    const cfg = () => ({ hotkey: () => ME, providerUrl: provider.url, masterHotkey: provider.masterHotkey, netuid: 53, ownerHotkey: OWNER });
    const first = new EarningsService(cfg, regDb, async () => gone, silentLogger);
    const now = Date.UTC(2026, 0, 6);
    expect((await first.refresh(now)).registration).toEqual({ uid: 7, lost: null, at: now });
    expect(earningsAlerts(first.snapshot()).filter((a) => a.kind === 'deregistered')).toEqual([]);
    uid = null;
    const lost = await first.refresh(now + 1000);
    expect(lost.registration).toEqual({ uid: null, lost: { uid: 7 }, at: now + 1000 });
    const alert = earningsAlerts(lost).find((a) => a.kind === 'deregistered')!;
    expect(alert.title).toBe('Hotkey no longer registered on subnet 53');
    expect(alert.body).toMatch(/^The chain no longer lists 5Gme1+ on subnet 53 \(it had uid 7\): a new registration took its slot/);
    first.dispose();
    // After a restart the uid is not remembered, but the verified epochs weighting this hotkey prove it was registered.
    const again = new EarningsService(cfg, regDb, async () => gone, silentLogger);
    expect((await again.refresh(now + 2000)).registration?.lost).toEqual({ uid: null });
    again.dispose();
    // A hotkey that never had a uid nor a weight: not registered yet, not "lost".
    const newcomer = new EarningsService(
      () => ({ ...cfg(), hotkey: () => '5Gnew111111111111111111111111111111111111111111' }),
      regDb,
      async () => gone,
      silentLogger,
    );
    const fresh = await newcomer.refresh(now + 3000);
    expect(fresh.registration).toEqual({ uid: null, lost: null, at: now + 3000 });
    expect(earningsAlerts(fresh).filter((a) => a.kind === 'deregistered')).toEqual([]);
    newcomer.dispose();
    regDb.close();
  });
});
