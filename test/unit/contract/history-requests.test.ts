// The history invokes take paging, time filters and a chart window from the renderer, which is not
// trusted: wrong types, out-of-range numbers, unknown and prototype-named fields are refused.
import { describe, expect, it } from 'vitest';
import { validateRequest } from '../../../electron/contract/validate.ts';

describe('history requests are validated where they enter', () => {
  it('accepts the documented shapes', () => {
    expect(validateRequest('history.requests', { outcome: 'ok', limit: 50, offset: 100, since: 1_700_000_000_000, until: 1_800_000_000_000 }).ok).toBe(true);
    expect(validateRequest('history.count', { since: 0 }).ok).toBe(true);
    expect(validateRequest('history.series', { windowMs: 86_400_000, points: 300, prefix: 'gpu.' }).ok).toBe(true);
  });

  it('refuses hostile ones', () => {
    const bad: Array<[Parameters<typeof validateRequest>[0], unknown]> = [
      ['history.requests', { offset: -1 }],
      ['history.requests', { offset: 1.5 }],
      ['history.requests', { since: '0' }],
      ['history.requests', { limit: 1e9 }],
      ['history.requests', JSON.parse('{"__proto__": {"limit": 5}}')],
      ['history.count', { outcome: 'all' }],
      ['history.count', { constructor: 1 }],
      ['history.series', {}],
      ['history.series', null],
      ['history.series', { windowMs: 10 }],
      ['history.series', { windowMs: 1e15 }],
      ['history.series', { windowMs: 3_600_000, points: 1e6 }],
      ['history.series', { windowMs: 3_600_000, prefix: "gpu.'; DROP TABLE series_samples; --" }],
      ['history.series', { windowMs: 3_600_000, prefix: 'x'.repeat(41) }],
      ['history.series', [3_600_000]],
    ];
    for (const [m, req] of bad) expect(validateRequest(m, req).ok, `${m} ${JSON.stringify(req)}`).toBe(false);
  });
});
