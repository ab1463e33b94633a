// What the gateway is waiting for while a worker qualifies, and how far along: every step from the miner's own
// snapshot, "not measured yet" instead of a false pass, and nothing once it earns or was refused.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TARGETS } from '../../../electron/engine/miner/stats.ts';
import { earningSince, qualification } from '../../../shared/qualification.ts';
import type { MinerSnapshot } from '../../../shared/miner.ts';
import { fmt } from '../../../shared/figure-units.ts';

const lat = (p99: number | null) => ({ p50: p99, p99, count: p99 === null ? 0 : 10 });
function snap(over: Partial<MinerSnapshot> = {}): MinerSnapshot {
  return {
    version: 1,
    phase: 'probing',
    detail: 'probing (12 answered)',
    since: 1_000,
    history: [{ at: 1_000, phase: 'probing', detail: '' }],
    gatewayUrl: 'wss://gw',
    gatewayWorkers: 8,
    legsPlanned: 8,
    legsLive: 8,
    legsWarning: null,
    legs: [],
    model: 'm',
    modelRoot: null,
    workerName: 'w',
    workerId: 'id',
    capacity: null,
    stats: {
      windowMs: 300_000,
      requests: 12,
      ok: 12,
      errors: 0,
      cancelled: 0,
      acceptanceRate: 1,
      ttftMs: lat(7_691),
      tpotMs: lat(19),
      e2eMs: lat(9_000),
      tokensPerSecond: 10,
      inflight: 0,
      inflightPeak: 8,
    },
    targets: DEFAULT_TARGETS,
    forecast: { status: 'on-track', text: 'on track', gate: null },
    loop: { lagP99Ms: 1, windowMs: 60_000, lagMaxMs: 2, stalls: 0, inflightAtMaxLag: 0 },
    audit: { audited: 0, skipped: 0, failures: 0, lastScore: null, meanScore: null, maxScore: null, threshold: 0.38, warning: null },
    recent: [],
    probe: { windowMs: 600_000, minRequests: 20, firstServeAt: 60_000, servedOk: 12, legsAdmitted: 8 },
    ...over,
  };
}

describe('qualification', () => {
  it('lists what is met and what the gateway still waits for, with the progress in numbers and units', () => {
    const q = qualification(snap(), 300_000)!;
    expect(q.steps.map((s) => [s.id, s.met])).toEqual([
      ['legs', true],
      ['answered', false],
      ['window', false],
      ['acceptance', true],
      ['ttft', true],
      ['tpot', true],
      ['proofs', null],
    ]);
    expect(q.met).toBe(4);
    expect(q.total).toBe(7);
    expect(q.waitingFor).toBe('probe requests answered: 12 ok since the first probe (needs at least 20)');
    expect(q.steps.find((s) => s.id === 'window')!.detail).toMatch(/^4 min of 10 min of traffic/);
    // One unit for TTFT: seconds, as the Mine cards say it.
    expect(q.steps.find((s) => s.id === 'ttft')!.detail).toBe(`7.7 s, last 5 min (needs at most ${fmt.ttftS(DEFAULT_TARGETS.ttftP99Ms)} s)`);
    // ok/answered: the acceptance step counts the same window as the Mine card and says so.
    expect(q.steps.find((s) => s.id === 'acceptance')!.detail).toMatch(/ ok of \d+ requests answered, last 5 min /);
  });

  it('says what is missing before any traffic, never a false pass', () => {
    const none = snap({
      phase: 'waiting-for-probe',
      stats: { ...snap().stats, requests: 0, ok: 0, acceptanceRate: null, ttftMs: lat(null), tpotMs: lat(null) },
      probe: { windowMs: 600_000, minRequests: 20, firstServeAt: null, servedOk: 0, legsAdmitted: 8 },
    });
    const q = qualification(none, 5_000)!;
    expect(q.steps.filter((s) => s.met === true).map((s) => s.id)).toEqual(['legs']);
    expect(q.steps.find((s) => s.id === 'acceptance')!.met).toBeNull();
    const partial = qualification(snap({ phase: 'connecting', legsPlanned: 8, probe: { ...none.probe!, legsAdmitted: 5 } }), 5_000)!;
    expect(partial.waitingFor).toMatch(/^every leg admitted: 5 of 8 legs admitted/);
    // An older engine without the probe facts: the legs from the leg list, the rest from the stats.
    const old = qualification(snap({ probe: undefined, legs: [] }), 5_000)!;
    expect(old.steps.map((s) => s.id)).toEqual(['legs', 'acceptance', 'ttft', 'tpot', 'proofs']);
  });

  it('all met: the gateway decides; gone once earning, and earning says since when', () => {
    const done = snap({ audit: { ...snap().audit, audited: 3, maxScore: 0.2 }, probe: { windowMs: 600_000, minRequests: 20, firstServeAt: 0, servedOk: 40, legsAdmitted: 8 } });
    expect(qualification(done, 700_000)!.waitingFor).toMatch(/^everything it measures is met/);
    const earning = snap({
      phase: 'active',
      since: 42_000,
      history: [
        { at: 1_000, phase: 'probing', detail: '' },
        { at: 42_000, phase: 'active', detail: '' },
      ],
    });
    expect(qualification(earning, 50_000)).toBeNull();
    expect(earningSince(earning)).toBe(42_000);
    expect(earningSince(snap())).toBeNull();
    // Reconnecting after having earned is not qualifying again (the worker id is kept).
    expect(qualification({ ...earning, phase: 'reconnecting' }, 60_000)).toBeNull();
    expect(qualification(snap({ phase: 'denied' }), 1)).toBeNull();
  });
});

describe('phase words on the Mine page', () => {
  it('"earning" for active, and the detail never repeats the badge ("probing probing")', async () => {
    const { phaseDetail, phaseLabel } = await import('../../../renderer/src/features/mine/phase-words.ts');
    expect(phaseLabel('active')).toBe('earning');
    expect(phaseLabel('waiting-for-probe')).toBe('waiting for probe');
    expect(phaseDetail('probing', 'probing (166 answered)')).toBe('166 answered');
    expect(phaseDetail('denied', 'denied: unknown miner key')).toBe('unknown miner key');
    expect(phaseDetail('active', 'serving (9 answered)')).toBe('serving (9 answered)');
  });
});

describe('one unit per latency figure', () => {
  it('TTFT reads the same (seconds) in the rehearsal, the last run and the Mine cards; TPOT in ms', async () => {
    const { ttftText, tpotText } = await import('../../../renderer/src/features/preflight/latency.ts');
    const { minerFigures } = await import('../../../renderer/src/features/mine/figures.ts');
    const stats = snap({ stats: { ...snap().stats, ttftMs: lat(7_691), tpotMs: lat(19.2) } }).stats;
    const cards = Object.fromEntries(minerFigures(stats, DEFAULT_TARGETS).map((f) => [f.id, `${f.value} ${f.unit}`]));
    expect(ttftText(7_691)).toBe('7.7 s');
    expect(cards.ttft).toBe(ttftText(7_691));
    expect(cards.tpot).toBe(tpotText(19.2));
    expect(ttftText(null)).toBe('—');
  });
});
