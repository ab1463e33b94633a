import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SnapshotEnvelope } from '../../../shared/api.ts';
import type { NotificationsSnapshot } from '../../../shared/notifications.ts';
import { Emitter } from '../../../electron/engine/lib/emitter.ts';
import { SnapshotHub } from '../../../electron/contract/snapshot-hub.ts';

function collect(hub: SnapshotHub): SnapshotEnvelope[] {
  const got: SnapshotEnvelope[] = [];
  hub.onEvent((e) => {
    if (e.event === 'snapshot') got.push(e.payload as SnapshotEnvelope);
  });
  return got;
}

describe('snapshot hub', () => {
  let t = 0;
  beforeEach(() => {
    vi.useFakeTimers();
    t = 0;
  });
  afterEach(() => vi.useRealTimers());

  it('publishes only on change, with the version rising only when something went out', () => {
    const hub = new SnapshotHub({ now: () => t });
    const got = collect(hub);
    expect(hub.publish('miners', [])).toBe(true);
    expect(hub.publish('miners', [])).toBe(false);
    expect(hub.publish('serve', null)).toBe(true);
    expect(hub.publish('serve', null)).toBe(false);
    expect(got.map((e) => `${e.topic}@${e.version}`)).toEqual(['miners@1', 'serve@1']);
    expect(hub.stats).toEqual({ changes: 0, published: 2, unchanged: 2 });
  });

  it('coalesces a burst of changes into one rebuild, and a busy topic into one per gap', () => {
    // The hub's clock is the fake timers' clock here, so waits and gaps line up.
    const hub = new SnapshotHub({ now: () => Date.now(), minGapMs: 100 });
    const got = collect(hub);
    const changes = new Emitter<void>();
    let n = 0;
    let builds = 0;
    const snap = (): NotificationsSnapshot => {
      builds++;
      return { n } as unknown as NotificationsSnapshot;
    };
    hub.bind('notifications', snap, (l) => changes.event(l));
    expect(got).toHaveLength(1);
    for (let i = 0; i < 50; i++) {
      n++;
      changes.fire();
    }
    expect(builds).toBe(1);
    vi.advanceTimersByTime(99);
    expect(builds).toBe(1);
    vi.advanceTimersByTime(1);
    expect(builds).toBe(2);
    expect(got.map((e) => (e.data as unknown as { n: number }).n)).toEqual([0, 50]);
    // A change inside the gap waits for it; an unchanged rebuild sends nothing.
    n++;
    changes.fire();
    vi.advanceTimersByTime(50);
    expect(got).toHaveLength(2);
    vi.advanceTimersByTime(50);
    changes.fire();
    vi.advanceTimersByTime(100);
    expect(got.map((e) => e.version)).toEqual([1, 2, 3]);
    expect(hub.stats).toMatchObject({ changes: 52, published: 3, unchanged: 1 });
  });

  it('gives a new client the latest state even while a change waits for its slot', () => {
    const hub = new SnapshotHub({ now: () => t, minGapMs: 1000 });
    const changes = new Emitter<void>();
    let phase = 'a';
    hub.bind(
      'notifications',
      () => ({ phase }) as unknown as NotificationsSnapshot,
      (l) => changes.event(l),
    );
    t = 1;
    phase = 'b';
    changes.fire();
    const now = hub.current();
    expect(now.map((e) => [e.version, (e.data as unknown as { phase: string }).phase])).toEqual([[2, 'b']]);
    // The waiting rebuild was taken by current(): nothing is sent twice.
    vi.advanceTimersByTime(5000);
    expect(hub.current().map((e) => e.version)).toEqual([2]);
  });

  it('stops rebuilding a topic once its binding is disposed', async () => {
    const hub = new SnapshotHub({ now: () => t });
    const changes = new Emitter<void>();
    let builds = 0;
    const b = hub.bind(
      'notifications',
      () => ({ b: ++builds }) as unknown as NotificationsSnapshot,
      (l) => changes.event(l),
    );
    changes.fire();
    await b.dispose();
    changes.fire();
    vi.advanceTimersByTime(1000);
    expect(builds).toBe(1);
  });
});
