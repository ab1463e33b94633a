// One word and one number for several gateway workers (a multi-engine rig): what the metrics, the tray
// and the tab title show.
import { describe, expect, it } from 'vitest';
import type { MinerPhase, MinerSnapshot } from '../../../shared/miner.ts';
import { fleetActivityKey, fleetLegs, fleetPhase } from '../../../shared/miner-fleet.ts';

const phases = (...p: MinerPhase[]) => p.map((phase) => ({ phase }));

describe('miner fleet summary', () => {
  it('is active only when every worker is, and otherwise names the least healthy worker', () => {
    expect(fleetPhase([])).toBe('stopped');
    expect(fleetPhase(phases('active'))).toBe('active');
    expect(fleetPhase(phases('active', 'active'))).toBe('active');
    expect(fleetPhase(phases('active', 'pulled'))).toBe('pulled');
    expect(fleetPhase(phases('denied', 'pulled', 'active'))).toBe('denied');
    expect(fleetPhase(phases('active', 'failed', 'reconnecting'))).toBe('failed');
    expect(fleetPhase(phases('probing', 'waiting-for-probe'))).toBe('probing');
    // A worker not started yet beside a serving one: not active, and not worse than the starting ones.
    expect(fleetPhase(phases('active', 'stopped'))).toBe('stopped');
    expect(fleetPhase(phases('stopped', 'connecting'))).toBe('connecting');
  });

  it('sums the legs and changes its activity key when any worker finishes something', () => {
    expect(fleetLegs([])).toEqual({ live: 0, planned: 0 });
    expect(
      fleetLegs([
        { legsLive: 8, legsPlanned: 8 },
        { legsLive: 5, legsPlanned: 8 },
      ]),
    ).toEqual({ live: 13, planned: 16 });
    const w = (corrId: string | null, audited = 0, skipped = 0) => ({ recent: corrId ? [{ corrId }] : [], audit: { audited, skipped } }) as unknown as Pick<MinerSnapshot, 'recent' | 'audit'>;
    const before = fleetActivityKey([w('a'), w(null)]);
    expect(fleetActivityKey([w('a'), w(null)])).toBe(before);
    expect(fleetActivityKey([w('a'), w('b')])).not.toBe(before);
    expect(fleetActivityKey([w('a', 1), w(null)])).not.toBe(before);
    expect(fleetActivityKey([w('a', 0, 1), w(null)])).not.toBe(before);
  });
});
