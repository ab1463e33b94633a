// How an alert's state reads on the Alerts page and in toasts: ongoing, cleared, or cut short by an engine stop.
import { describe, expect, it } from 'vitest';
import { notificationStatus } from '../../../renderer/src/features/common/notification-status.ts';
import type { AppNotification } from '../../../shared/notifications.ts';

const base: AppNotification = { id: 1, at: 0, updatedAt: 0, active: true, endedAt: null, kind: 'serve-crashed', severity: 'error', title: 't', body: 'b', action: null };

describe('notificationStatus', () => {
  it('says ongoing, cleared, or interrupted by an engine stop, each with its duration', () => {
    expect(notificationStatus(base, 90_000)).toMatch(/^ongoing for /);
    expect(notificationStatus({ ...base, active: false, endedAt: 30_000, updatedAt: 30_000 }, 90_000)).toMatch(/^cleared after /);
    const cut = notificationStatus({ ...base, active: false, updatedAt: 45_000, interruptedAt: 100_000 }, 120_000);
    expect(cut).toMatch(/^still ongoing after .* when the engine stopped; a new alert opens if it remains$/);
    expect(cut).not.toBe(notificationStatus({ ...base, active: false, updatedAt: 45_000 }, 120_000));
    // Text unchanged for 7 min (updatedAt = at) but seen ongoing until then: the true duration, not "after 0 s".
    expect(notificationStatus({ ...base, active: false, updatedAt: 0, seenAt: 420_000, interruptedAt: 430_000 }, 500_000)).toMatch(/^still ongoing after 7 min 0 s when/);
  });
});
