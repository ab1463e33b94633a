import { describe, expect, it } from 'vitest';
import { AUDIT_WINDOW_MAX_MS, auditWindowMs } from '../../../renderer/src/features/history/audit-window.ts';

const MIN = 60_000;
const now = Date.UTC(2026, 11, 5, 12);

describe('the self-audit chart window', () => {
  it('is the shortest step that holds every audit, with room before the oldest', () => {
    expect(auditWindowMs([now - 90_000, now - 30_000], now)).toBe(2 * MIN);
    expect(auditWindowMs([now - 2 * MIN, now - 30_000], now)).toBe(5 * MIN);
    // 9.6 min ago plus 5 % room is past 10 min: the next step.
    expect(auditWindowMs([now - 9.6 * MIN], now)).toBe(30 * MIN);
    expect(auditWindowMs([now - 50 * MIN, now - MIN], now)).toBe(60 * MIN);
    expect(auditWindowMs([now - 5 * 60 * MIN], now)).toBe(6 * 60 * MIN);
  });

  it('is 24 h with no audit, with audits older than that, or with values that are not times', () => {
    expect(auditWindowMs([], now)).toBe(AUDIT_WINDOW_MAX_MS);
    expect(AUDIT_WINDOW_MAX_MS).toBe(24 * 60 * MIN);
    expect(auditWindowMs([now - 3 * 24 * 60 * MIN, now - MIN], now)).toBe(AUDIT_WINDOW_MAX_MS);
    expect(auditWindowMs([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY], now)).toBe(AUDIT_WINDOW_MAX_MS);
    // An audit stamped a little in the future (another clock) still gets the shortest window.
    expect(auditWindowMs([now + 5_000], now)).toBe(2 * MIN);
  });
});
