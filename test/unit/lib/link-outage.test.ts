// A link that retries by itself is one outage in the log: 73 drops in 6 minutes are one warning and one "back" line.
import { describe, expect, it } from 'vitest';
import { LinkOutage } from '../../../electron/engine/lib/link-outage.ts';

describe('LinkOutage', () => {
  it('one warning for a run of failed retries, one line with the length and drop count when it is back', () => {
    const o = new LinkOutage('chain connection');
    expect(o.connected(0)).toBeNull(); // the first connection is no recovery
    const lines = [];
    for (let i = 0; i < 73; i++) lines.push(o.dropped(1_000 + i * 5_000));
    expect(lines.filter((l) => l !== null)).toEqual([{ level: 'warn', text: expect.stringMatching(/^chain connection dropped; reconnecting by itself/) }]);
    expect(o.down).toBe(true);
    expect(o.connected(1_000 + 6 * 60_000)).toEqual({ level: 'info', text: 'chain connection is back after 6 min 0 s (73 drops)' });
    expect(o.down).toBe(false);
    // A later outage counts from zero again.
    expect(o.dropped(500_000)).not.toBeNull();
    expect(o.connected(512_000)?.text).toBe('chain connection is back after 12 s (1 drop)');
  });
});
