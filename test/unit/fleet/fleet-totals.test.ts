// The Fleet totals count each hotkey's τ once: rigs mining for one hotkey all report that hotkey's τ, so
// adding their rows would overstate the money. Distinct hotkeys add up, a rig whose hotkey is unknown counts
// on its own, and broken figures (NaN, negative, infinite, more than τ's supply) never reach a total.
import { describe, expect, it } from 'vitest';
import { fleetSnapshot, rigRow, type RigLinkView } from '../../../electron/engine/fleet/fleet-row.ts';
import { parseRigTopic } from '../../../electron/engine/fleet/rig-topics.ts';
import type { RigRow } from '../../../shared/fleet.ts';
import { rigLinkView } from '../../helpers/rig-link-view.ts';

const KEY_A = '5F3sa2TJAWMqDhXG6jhV4N8ko9SxwGy8TpaNS1repo5EYjQX';
const KEY_B = '5HGjWAeFDfFCWPsjFQdVV2Msvz2XtMktvgocEZcCj68kUMaw';

const view = (hotkey: string | null | undefined, day: number, week: number): RigLinkView =>
  rigLinkView({
    detail: '',
    topics: {
      earnings: {
        ...(hotkey === undefined ? {} : { hotkey }),
        epochs: [],
        registration: { uid: 3 },
        onChain: null,
        totals: { day: { projectedTao: day, realisedTao: 0 }, week: { projectedTao: week, realisedTao: 0 } },
      },
    },
  });
const rig = (name: string, hotkey: string | null | undefined, day: number, week = day * 7): RigRow =>
  rigRow({ id: `abcdef${name.charCodeAt(name.length - 1).toString(16)}0000`, name, target: `op@${name}`, command: 'engy-panel', dataDir: null }, view(hotkey, day, week));

describe('fleet totals over hotkeys', () => {
  it("a row carries its rig's hotkey from the earnings snapshot (null when the rig did not say)", () => {
    expect(rig('rig-a', KEY_A, 1).hotkey).toBe(KEY_A);
    expect(rig('rig-a', null, 1).hotkey).toBeNull();
    expect(rig('rig-a', undefined, 1).hotkey).toBeNull();
  });

  it("three rigs of one hotkey: the total is that hotkey's τ once, and each row names the others", () => {
    const snap = fleetSnapshot([rig('rig-a', KEY_A, 0.5, 2), rig('rig-b', KEY_A, 0.5, 2), rig('rig-c', KEY_A, 0.5, 2)]);
    expect(snap.totals).toMatchObject({ rigs: 3, earners: 1, todayTao: 0.5, weekTao: 2 });
    expect(snap.rigs.map((r) => r.sharedHotkey)).toEqual([
      { with: ['rig-b', 'rig-c'], counted: true, countedFrom: 'rig-a' },
      { with: ['rig-a', 'rig-c'], counted: false, countedFrom: 'rig-a' },
      { with: ['rig-a', 'rig-b'], counted: false, countedFrom: 'rig-a' },
    ]);
    expect(snap.earners).toEqual([{ hotkey: KEY_A, rigs: ['rig-a', 'rig-b', 'rig-c'], todayTao: 0.5 }]);
  });

  it('distinct hotkeys add up; a shared pair among them counts once', () => {
    const snap = fleetSnapshot([rig('rig-a', KEY_A, 0.5, 2), rig('rig-b', KEY_B, 0.25, 1), rig('rig-c', KEY_A, 0.5, 2)]);
    expect(snap.totals).toMatchObject({ rigs: 3, earners: 2, todayTao: 0.75, weekTao: 3 });
    expect(snap.rigs[1]!.sharedHotkey).toBeNull();
    expect(snap.earners.map((e) => e.rigs)).toEqual([['rig-a', 'rig-c'], ['rig-b']]);
  });

  it('a rig whose hotkey is not known counts on its own, even beside rigs that share one', () => {
    const snap = fleetSnapshot([rig('rig-a', null, 0.5), rig('rig-b', undefined, 0.5), rig('rig-c', KEY_A, 0.25), rig('rig-d', KEY_A, 0.25)]);
    expect(snap.totals).toMatchObject({ earners: 3, todayTao: 1.25 });
    expect(snap.rigs[0]!.sharedHotkey).toBeNull();
    expect(snap.rigs[1]!.sharedHotkey).toBeNull();
  });

  it('the shared τ comes from the first rig that has a sane figure (a rig that has not read its τ yet is skipped)', () => {
    const waiting = { ...rig('rig-a', KEY_A, 0), todayTao: null, weekTao: null };
    const snap = fleetSnapshot([waiting, rig('rig-b', KEY_A, 0.5, 2)]);
    expect(snap.totals).toMatchObject({ todayTao: 0.5, weekTao: 2 });
    expect(snap.rigs[0]!.sharedHotkey).toEqual({ with: ['rig-b'], counted: false, countedFrom: 'rig-b' });
  });

  it.each([
    ['NaN', Number.NaN],
    ['negative', -5],
    ['infinite', Number.POSITIVE_INFINITY],
    ['more than the supply', 1e300],
  ])('a %s τ never poisons the totals (it counts as no figure)', (_, bad) => {
    const broken = { ...rig('rig-a', KEY_B, 0), todayTao: bad, weekTao: bad, epochTao: bad, tokensPerSecond: bad };
    const snap = fleetSnapshot([broken, rig('rig-b', KEY_A, 0.5, 2), rig('rig-c', null, 0.25, 1)]);
    expect(snap.totals).toMatchObject({ todayTao: 0.75, weekTao: 3 });
    expect(Number.isFinite(snap.totals.tokensPerSecond)).toBe(true);
    expect(snap.earners[0]).toEqual({ hotkey: KEY_B, rigs: ['rig-a'], todayTao: null });
  });

  it('a broken figure on one rig of a shared hotkey: the sane one of the group is counted', () => {
    const broken = { ...rig('rig-a', KEY_A, 0), todayTao: Number.NaN };
    expect(fleetSnapshot([broken, rig('rig-b', KEY_A, 0.5, 2)]).totals).toMatchObject({ earners: 1, todayTao: 0.5, weekTao: 2 });
  });

  it('a hotkey named "__proto__" or "constructor" is just a string', () => {
    const snap = fleetSnapshot([rig('rig-a', '__proto__', 0.5), rig('rig-b', '__proto__', 0.5), rig('rig-c', 'constructor', 0.25)]);
    expect(snap.totals).toMatchObject({ earners: 2, todayTao: 0.75 });
    expect(snap.earners).toEqual([
      { hotkey: '__proto__', rigs: ['rig-a', 'rig-b'], todayTao: 0.5 },
      { hotkey: 'constructor', rigs: ['rig-c'], todayTao: 0.25 },
    ]);
  });

  it('the earnings snapshot is refused when its hotkey is not a short string (and accepted without one, from older rigs)', () => {
    const base = { epochs: [], registration: null, onChain: null, totals: { day: { projectedTao: 0, realisedTao: 0 }, week: { projectedTao: 0, realisedTao: 0 } } };
    expect(parseRigTopic('earnings', { ...base, hotkey: KEY_A }).ok).toBe(true);
    expect(parseRigTopic('earnings', { ...base, hotkey: null }).ok).toBe(true);
    expect(parseRigTopic('earnings', base).ok).toBe(true);
    for (const bad of [42, '', 'x'.repeat(129), { k: 1 }, [KEY_A]]) expect(parseRigTopic('earnings', { ...base, hotkey: bad }).ok).toBe(false);
    expect(parseRigTopic('earnings', { ...base, totals: { ...base.totals, day: { projectedTao: Number.NaN, realisedTao: 0 } } }).ok).toBe(false);
  });
});
