// The commit-reveal bookkeeping without a chain: the reveal round from the epoch schedule, the commit record
// file under hostile content, adopting a commit that landed unrecorded, and judging whether a reveal landed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planReveal } from '../../../electron/engine/chain/tlock/reveal-round.ts';
import { QUICKNET } from '../../../electron/engine/chain/tlock/quicknet.ts';
import { adoptIntent, settleReveals, weightsMatch } from '../../../electron/engine/validator/commit-reveal.ts';
import { commitStorePath, EMPTY_STORE, readCommitStore, writeCommitStore, type CommitRecord } from '../../../electron/engine/validator/commit-reveal-store.ts';
import { EMPTY_STATE } from '../../../electron/engine/validator/state-file.ts';

const ME = '5Me';
const record = (over: Partial<CommitRecord> = {}): CommitRecord => ({
  epochIndex: 7,
  kind: 'fresh',
  digest: 'b'.repeat(64),
  weights: [['5MinerA', 1]],
  uids: [3, 4],
  values: [16383, 49152],
  revealRound: 5000,
  revealEpochBlock: 1000,
  expectedRevealBlock: 1003,
  block: 700,
  commitBlock: null,
  commitHex: 'abcd',
  at: 1_790_000_000_000,
  ...over,
});

describe('reveal round from the chain schedule', () => {
  const base = { block: 1000, nowMs: 1_790_000_000_000, nextEpochBlock: 1100, tempo: 360, lastStoredRound: 0, beacon: QUICKNET, blockS: 12 };

  it('targets the first blocks of the epoch RevealPeriodEpochs after the current one', () => {
    const p = planReveal({ ...base, revealPeriodEpochs: 1 });
    expect(p.revealEpochBlock).toBe(1100);
    expect(p.expectedRevealBlock).toBe(1103);
    expect(p.round).toBe(Math.floor((1_790_000_000 + 103 * 12 - QUICKNET.genesisS) / 3));
    const later = planReveal({ ...base, revealPeriodEpochs: 3 });
    expect(later.revealEpochBlock).toBe(1100 + 2 * 360);
    expect(later.round - p.round).toBe((2 * 360 * 12) / 3);
  });

  it('never goes below the stored round, and copes with a stale next-epoch block and a zero period', () => {
    expect(planReveal({ ...base, revealPeriodEpochs: 1, lastStoredRound: 9e9 }).round).toBe(9e9 + 1);
    expect(planReveal({ ...base, revealPeriodEpochs: 0, nextEpochBlock: 900 }).revealEpochBlock).toBe(1001);
  });
});

describe('commit record file', () => {
  const path = () => commitStorePath(join(mkdtempSync(join(tmpdir(), 'engy-cr-')), 'state.json'));

  it('round-trips and sits beside the state file', () => {
    const p = path();
    expect(p.endsWith('state.commit-reveal.json')).toBe(true);
    const s = { intent: record(), pending: [record({ commitBlock: 701 })], lastReveal: { epochIndex: 6, revealRound: 4000, checkedBlock: 900, landed: true, detail: 'ok' } };
    writeCommitStore(p, s);
    expect(readCommitStore(p)).toEqual({ store: s, dropped: 0 });
  });

  it('drops poisoned entries one by one and survives garbage, arrays and prototype keys', () => {
    const p = path();
    writeFileSync(
      p,
      JSON.stringify({
        intent: { ...record(), uids: [70000], values: [1] },
        pending: [record(), { ...record(), commitHex: '0xzz' }, { ...record(), kind: '__proto__' }, null, 'x'],
        lastReveal: { epochIndex: -1 },
        __proto__: { polluted: true },
      }),
    );
    const r = readCommitStore(p);
    expect(r.store.intent).toBeNull();
    expect(r.store.pending).toEqual([record()]);
    expect(r.store.lastReveal).toBeNull();
    expect(r.dropped).toBe(6);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    writeFileSync(p, '[1,2]');
    expect(readCommitStore(p).store).toEqual(EMPTY_STORE);
    writeFileSync(p, '{not json');
    expect(readCommitStore(p).store).toEqual(EMPTY_STORE);
    expect(readCommitStore(join(p, 'missing')).store).toEqual(EMPTY_STORE);
  });
});

describe('adopting a commit that landed unrecorded', () => {
  const commit = { who: ME, epoch: 2, commitBlock: 705, commit: new Uint8Array([0xab, 0xcd]), revealRound: 5000 };

  it('adopts exactly our bytes: the state moves as if the tick had seen it accepted', () => {
    const r = adoptIntent({ ...EMPTY_STORE, intent: record() }, { ...EMPTY_STATE, lastApplied: 6 }, [commit], ME, 710);
    expect(r.state).toEqual({ lastApplied: 7, lastSubmitBlock: 705, lastSubmitMs: record().at, cachedWeights: [['5MinerA', 1]], cachedDigest: 'b'.repeat(64) });
    expect(r.store.intent).toBeNull();
    expect(r.store.pending).toEqual([record({ commitBlock: 705 })]);
    expect(r.note).toMatch(/adopted/);
  });

  it('adopts on LastUpdate evidence when the commit was already revealed and left the queue', () => {
    const r = adoptIntent({ ...EMPTY_STORE, intent: record() }, { ...EMPTY_STATE, lastSubmitBlock: 600 }, [], ME, 900, 702);
    expect(r.state).toMatchObject({ lastApplied: 7, lastSubmitBlock: 702 });
    expect(r.store.pending).toEqual([record({ commitBlock: 702 })]);
    // A LastUpdate from before the intent proves nothing.
    expect(adoptIntent({ ...EMPTY_STORE, intent: record() }, EMPTY_STATE, [], ME, 710, 650).state).toBeNull();
  });

  it('ignores other bytes and other hotkeys; drops an intent too old to land; a standby keeps the cache', () => {
    expect(
      adoptIntent(
        { ...EMPTY_STORE, intent: record() },
        EMPTY_STATE,
        [
          { ...commit, who: '5Other' },
          { ...commit, commit: new Uint8Array([1]) },
        ],
        ME,
        710,
      ).state,
    ).toBeNull();
    const old = adoptIntent({ ...EMPTY_STORE, intent: record() }, EMPTY_STATE, [], ME, 700 + 141);
    expect(old.store.intent).toBeNull();
    expect(old.note).toMatch(/expired/);
    const standby = adoptIntent({ ...EMPTY_STORE, intent: record({ kind: 'standby:burn' }) }, { ...EMPTY_STATE, cachedWeights: [['5Kept', 9]] }, [commit], ME, 710);
    expect(standby.state?.cachedWeights).toEqual([['5Kept', 9]]);
  });
});

describe('did the reveal land', () => {
  it('compares against the max-upscaled values the chain stores, one unit of rounding allowed', () => {
    // Sent: uids 3 and 4 at 16383 and 49152, which the chain stores max-upscaled as 21844 and 65535.
    const landedAs = (stored3: number) =>
      weightsMatch(
        [
          [3, stored3],
          [4, 65535],
        ],
        [3, 4],
        [16383, 49152],
      );
    expect(landedAs(21844)).toBe(true);
    expect(landedAs(21843)).toBe(true);
    expect(landedAs(30000)).toBe(false);
    expect(weightsMatch([[4, 65535]], [3, 4], [16383, 49152])).toBe(false);
    expect(weightsMatch([[0, 65535]], [0], [65535])).toBe(true);
  });

  it('keeps queued or not-yet-due commits; settles the rest as landed or not', () => {
    const queued = { who: ME, epoch: 2, commitBlock: 701, commit: new Uint8Array([0xab, 0xcd]), revealRound: 5000 };
    const store = { ...EMPTY_STORE, pending: [record({ commitBlock: 701 })] };
    expect(settleReveals(store, [queued], ME, 1010, null).pending).toHaveLength(1);
    expect(settleReveals(store, [], ME, 999, null).pending).toHaveLength(1);
    const landed = settleReveals(store, [], ME, 1004, [
      [3, 21843],
      [4, 65535],
    ]);
    expect(landed.pending).toEqual([]);
    expect(landed.lastReveal).toMatchObject({ epochIndex: 7, revealRound: 5000, landed: true, checkedBlock: 1004 });
    const lost = settleReveals(store, [], ME, 1004, [[3, 65535]]);
    expect(lost.lastReveal).toMatchObject({ landed: false });
    expect(lost.lastReveal?.detail).toMatch(/reveal failed/);
  });
});
