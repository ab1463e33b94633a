import { describe, expect, it } from 'vitest';
import { NotificationService, REOPEN_WITHIN_MS } from '../../../electron/engine/notify/notification-service.ts';
import { earningsAlerts, minerAlerts, validatorAlerts, type Alert } from '../../../electron/engine/notify/alert-rules.ts';
import type { EarningsSnapshot } from '../../../shared/earnings.ts';
import type { MinerSnapshot } from '../../../shared/miner.ts';
import type { ValidatorSnapshot } from '../../../shared/validator.ts';

const alert = (body: string): Alert => ({ key: 'k', kind: 'serve-crashed', severity: 'error', title: 'Engine 0 crashed', body });

describe('notification history', () => {
  it('one notification per condition: its text updates in place, it is marked cleared, and kept', () => {
    let now = 1000;
    const svc = new NotificationService(
      () => [],
      () => now,
    );
    const fresh: number[] = [];
    svc.onNotification((n) => fresh.push(n.id));
    svc.update('serve', [alert('restart 1 of 5')]);
    now = 2000;
    svc.update('serve', [alert('restart 2 of 5')]);
    expect(fresh).toHaveLength(1);
    const n = svc.snapshot().recent[0]!;
    expect(n).toMatchObject({ body: 'restart 2 of 5', at: 1000, updatedAt: 2000, active: true, endedAt: null, action: { page: 'mine' } });
    now = 5000;
    svc.update('serve', []);
    expect(svc.snapshot().recent[0]).toMatchObject({ active: false, endedAt: 5000 });
    // The same condition again, long after, is a new notification; the old one stays in the history.
    now += REOPEN_WITHIN_MS + 1;
    svc.update('serve', [alert('restart 1 of 5')]);
    expect(svc.snapshot().recent.map((x) => x.active)).toEqual([true, false]);
    expect(fresh).toHaveLength(2);
  });

  it('a provider outage seen by the validator and the earnings poll is one notification, cleared when both see it back', () => {
    let now = 0;
    const svc = new NotificationService(
      () => [],
      () => now,
    );
    const v = {
      status: 'running',
      provider: { health: 'down', error: 'connect ECONNREFUSED', at: 0 },
      chain: { health: 'ok', error: null, block: 1, at: 0 },
      recentSubmissions: [],
      neuron: null,
      lastTickAt: 0,
    } as unknown as ValidatorSnapshot;
    const e = {
      hotkey: '5F',
      epochs: [],
      registration: null,
      sources: { provider: { ok: false, error: 'HTTP 503', downSince: 0 }, chain: { ok: true, error: null, downSince: null } },
    } as unknown as EarningsSnapshot;
    svc.update('validator', validatorAlerts(v, now));
    svc.update('earnings', earningsAlerts(e));
    expect(svc.snapshot().recent).toHaveLength(1);
    expect(svc.snapshot().recent[0]).toMatchObject({ title: 'Provider unreachable', active: true, body: expect.stringContaining('HTTP 503') });
    now = 212_000;
    svc.update('validator', validatorAlerts({ ...v, provider: { health: 'ok', error: null, at: now } }, now));
    expect(svc.snapshot().recent[0]!.active).toBe(true); // the earnings poll still sees it down
    svc.update('earnings', earningsAlerts({ ...e, sources: { ...e.sources, provider: { ok: true, error: null, downSince: null } } }));
    expect(svc.snapshot().recent[0]).toMatchObject({ active: false, endedAt: 212_000 });
  });

  it('a gateway outage (no leg live while reconnecting) says so and opens Mine', () => {
    const m = {
      phase: 'reconnecting',
      legsLive: 0,
      detail: 'reconnecting',
      gatewayUrl: 'wss://gw',
      legs: [{ lastError: 'ECONNREFUSED' }],
      forecast: { status: 'on-track' },
    } as unknown as MinerSnapshot;
    const a = minerAlerts(m);
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ key: 'gateway-outage', title: 'Gateway unreachable', body: expect.stringContaining('wss://gw (ECONNREFUSED)') });
  });

  it('a flapping condition is one notification: back within minutes it reopens (same id, no new OS notification), its duration from the first drop', () => {
    let now = 0;
    const svc = new NotificationService(
      () => [],
      () => now,
    );
    const fresh: number[] = [];
    svc.onNotification((n) => fresh.push(n.id));
    for (let drop = 0; drop < 73; drop++) {
      svc.update('earnings', [alert(`drop ${drop}`)]);
      now += 2_500;
      svc.update('earnings', []);
      now += 2_500;
    }
    expect(fresh).toHaveLength(1);
    expect(svc.snapshot().recent).toHaveLength(1);
    svc.update('earnings', [alert('still dropping')]);
    expect(svc.snapshot().recent[0]).toMatchObject({ id: fresh[0], active: true, endedAt: null, at: 0, body: 'still dropping' });
  });

  it('an ongoing alert keeps when it was last seen (saved about once a minute), so an engine stop tells its true duration', () => {
    let now = 0;
    const svc = new NotificationService(
      () => [],
      () => now,
    );
    for (; now <= 7 * 60_000; now += 5_000) svc.update('validator', [alert('same text')]);
    const n = svc.snapshot().recent[0]!;
    expect(n.updatedAt).toBe(0);
    expect(n.seenAt).toBeGreaterThanOrEqual(6 * 60_000);
  });

  it('muted kinds raise nothing', () => {
    const svc = new NotificationService(() => ['serve-crashed']);
    svc.update('serve', [alert('x')]);
    expect(svc.snapshot().recent).toEqual([]);
  });
  it('says once while the newest verified epoch failed a gate, follows the next failing epoch, and clears on a pass', () => {
    const svc = new NotificationService(
      () => [],
      () => 0,
    );
    const fresh: string[] = [];
    svc.onNotification((n) => fresh.push(n.title));
    const epoch = (i: number, passed: boolean | null, reason: string | null = null) => ({ epochIndex: i, gate: { passed, reason } });
    const snap = (...epochs: ReturnType<typeof epoch>[]) =>
      ({
        hotkey: '5F',
        epochs,
        registration: null,
        sources: { provider: { ok: true, error: null, downSince: null }, chain: { ok: true, error: null, downSince: null } },
      }) as unknown as EarningsSnapshot;
    svc.update('earnings', earningsAlerts(snap(epoch(4, true), epoch(5, false, 'ttft_p99 above the gate'))));
    expect(fresh).toEqual(['Epoch #5 scored nothing: a gate failed']);
    expect(svc.snapshot().recent[0]).toMatchObject({ kind: 'epoch-failed', severity: 'error', action: { page: 'earnings' }, body: expect.stringContaining('(ttft_p99 above the gate)') });
    // Still failing at #6: the same alert, its text moved on; no second notification.
    svc.update('earnings', earningsAlerts(snap(epoch(6, false, 'cheat'), epoch(5, false, 'ttft_p99 above the gate'))));
    expect(fresh).toHaveLength(1);
    expect(svc.snapshot().recent[0]!.title).toBe('Epoch #6 scored nothing: a gate failed');
    // A passing epoch, or one that says nothing about gates, clears it.
    svc.update('earnings', earningsAlerts(snap(epoch(7, true), epoch(6, false))));
    expect(svc.snapshot().recent[0]!.active).toBe(false);
    expect(earningsAlerts(snap(epoch(8, null)))).toEqual([]);
  });
});
