// Upstream's tests/test_sync.py and test_chain.py payload-shape and vector cases that had no
// counterpart here (see docs/validator.md, the table).
import { describe, expect, it } from 'vitest';
import { normalizeWeights } from '../../../electron/engine/chain/normalize-weights.ts';
import * as constants from '../../../electron/engine/validator/constants.ts';
import { PINNED_MASTER_HOTKEY, SUBNET_OWNER_HOTKEY } from '../../../shared/network.ts';
import { epochMessage, sha256Hex, verifyPayload } from '../../../electron/engine/validator/payload-verify.ts';
import { decide } from '../../../electron/engine/validator/schedule.ts';
import { soleRecipient } from '../../../electron/engine/validator/standby.ts';
import { DEV_MASTER_URI, devKey, signedPayload } from '../../doubles/provider.ts';

const master = devKey(DEV_MASTER_URI);
const opts = { masterHotkey: master.address, netuid: 53 };
const A = devKey('//MinerA').address;

/** The payload with its result_json replaced and properly re-signed by the master. */
function withResult(patch: (r: Record<string, unknown>) => Record<string, unknown>) {
  const p = signedPayload({ epochIndex: 12, weights: [[A, 65535]] });
  const rj = JSON.stringify(patch(JSON.parse(p.result_json) as Record<string, unknown>));
  const digest = sha256Hex(rj);
  return { ...p, result_json: rj, digest, signature: Buffer.from(master.sign(Buffer.from(epochMessage(53, 12, digest)))).toString('hex') };
}

const reason = (p: unknown) => {
  const v = verifyPayload(p, opts);
  return v.ok ? 'ok' : v.reason;
};

describe('payload shapes (upstream test_sync.py)', () => {
  it('the signed message is engy-sn53:epoch:v1:<netuid>:<epoch>:<digest>', () => {
    expect(epochMessage(53, 12, 'd3ad')).toBe('engy-sn53:epoch:v1:53:12:d3ad');
  });

  it('refuses a signature that is not hex or not 64 bytes', () => {
    const p = signedPayload({ epochIndex: 12, weights: [[A, 1]] });
    for (const sig of ['zz', '00', '', 'g'.repeat(128), `${p.signature}00`, 42, null]) expect(reason({ ...p, signature: sig }), String(sig)).toBe('signature');
  });

  it('refuses a signature over the <Bytes>-wrapped message (raw bytes only)', () => {
    const p = signedPayload({ epochIndex: 12, weights: [[A, 1]] });
    const wrapped = Buffer.from(`<Bytes>${epochMessage(53, 12, p.digest)}</Bytes>`);
    expect(reason({ ...p, signature: Buffer.from(master.sign(wrapped)).toString('hex') })).toBe('signature');
  });

  it('refuses a boolean, fractional, negative or string epoch_index', () => {
    const p = signedPayload({ epochIndex: 1, weights: [[A, 1]] });
    for (const idx of [true, false, 1.5, -1, '1']) expect(reason({ ...p, epoch_index: idx }), String(idx)).not.toBe('ok');
    expect(reason({ ...p, epoch_index: true })).toBe('malformed');
  });

  it('refuses result_json that is missing, not a string, or whose weights are missing, not a list, hold a non-pair or are out of range', () => {
    const p = signedPayload({ epochIndex: 12, weights: [[A, 1]] });
    const { result_json: _gone, ...noResult } = p;
    expect(reason(noResult)).toBe('malformed');
    expect(reason({ ...p, result_json: JSON.parse(p.result_json) })).toBe('malformed');
    expect(reason(withResult(({ weights: _w, ...r }) => r))).toBe('malformed');
    expect(reason(withResult((r) => ({ ...r, weights: 'nope' })))).toBe('malformed');
    expect(reason(withResult((r) => ({ ...r, weights: [[A, 100], 'not-a-pair'] })))).toBe('malformed');
    expect(reason(withResult((r) => ({ ...r, weights: [[A, 70000]] })))).toBe('malformed');
    expect(reason(withResult((r) => ({ ...r, weights: [['__proto__', 1]] })))).toBe('ok'); // a hotkey string, never an object key
    expect(
      verifyPayload(
        withResult((r) => ({
          ...r,
          weights: [
            [A, 0],
            ['5Bbb', 65535],
          ],
        })),
        opts,
      ),
    ).toMatchObject({
      ok: true,
      weights: [
        [A, 0],
        ['5Bbb', 65535],
      ],
      epochIndex: 12,
    });
  });

  it('a non-object payload is malformed with no epoch', () => {
    for (const bad of [[1, 2, 3], 'nope', 5, null, undefined]) expect(verifyPayload(bad, opts)).toMatchObject({ ok: false, reason: 'malformed', epochIndex: null });
  });

  it('an old payload still verifies; the schedule, not verification, refuses the replay', () => {
    const old = signedPayload({ epochIndex: 11, weights: [[A, 1]] });
    expect(verifyPayload(old, opts)).toMatchObject({ ok: true, epochIndex: 11 });
    expect(decide({ epochIndex: 11, lastApplied: 12, currentBlock: 9999, lastSubmitBlock: 0, nowMs: 0, lastSubmitMs: null, intervalBlocks: 120 })).toMatchObject({ submit: false, why: 'older-epoch' });
  });

  it('takes no clock or schedule input: the same payload verifies the same whenever it is checked', () => {
    expect(verifyPayload.length).toBe(2);
    // No epoch length or genesis pinned locally: the provider owns the timeline.
    expect(Object.keys(constants).filter((k) => /EPOCH_(S|LEN|SECONDS)|GENESIS/.test(k))).toEqual([]);
    const p = signedPayload({ epochIndex: 12, weights: [[A, 1]] });
    const first = verifyPayload(p, opts);
    const realNow = Date.now;
    try {
      Date.now = () => 4_102_444_800_000; // 2100
      expect(verifyPayload(p, opts)).toEqual(first);
    } finally {
      Date.now = realNow;
    }
  });
});

describe('vectors and burn targets (upstream test_chain.py)', () => {
  const uids = new Map([
    ['5Aaa', 0],
    ['5Owner', 1],
    ['5Bbb', 2],
  ]);

  it('the dropped share is by weight, 0 when all are registered, 1 when none are, 0 for all-zero or empty', () => {
    expect(
      normalizeWeights(
        [
          ['5Aaa', 1],
          ['5Gone', 3],
        ],
        uids,
      ).droppedShare,
    ).toBeCloseTo(0.75, 12);
    expect(
      normalizeWeights(
        [
          ['5Aaa', 1],
          ['5Bbb', 3],
        ],
        uids,
      ).droppedShare,
    ).toBe(0);
    expect(normalizeWeights([['5Gone', 1]], uids)).toMatchObject({ droppedShare: 1, uids: [], values: [] });
    expect(
      normalizeWeights(
        [
          ['5Aaa', 0],
          ['5Gone', 0],
        ],
        uids,
      ).droppedShare,
    ).toBe(0);
    expect(normalizeWeights([], uids)).toEqual({ uids: [], values: [], dropped: [], droppedShare: 0 });
  });

  it('lists the unregistered hotkeys in payload order, none when all are registered', () => {
    expect(
      normalizeWeights(
        [
          ['5Zed', 1],
          ['5Aaa', 1],
          ['5Ann', 1],
        ],
        uids,
      ).dropped,
    ).toEqual(['5Zed', '5Ann']);
    expect(normalizeWeights([['5Aaa', 1]], uids).dropped).toEqual([]);
  });

  it('a burn vector resolves to the owner alone', () => {
    expect(normalizeWeights([['5Owner', 65535]], uids)).toEqual({ uids: [1], values: [65535], dropped: [], droppedShare: 0 });
  });

  it('the burn target is the sole non-zero recipient, none for a distribution, an empty or an all-zero vector', () => {
    expect(soleRecipient([['5Owner', 65535]])).toBe('5Owner');
    expect(
      soleRecipient([
        ['5A', 0],
        ['5Owner', 65535],
        ['5B', 0],
      ]),
    ).toBe('5Owner');
    expect(
      soleRecipient([
        ['5A', 40000],
        ['5B', 25535],
      ]),
    ).toBeNull();
    expect(soleRecipient([])).toBeNull();
    expect(
      soleRecipient([
        ['5A', 0],
        ['5B', 0],
      ]),
    ).toBeNull();
  });

  it('the fallback owner is the subnet owner hotkey the reference pins (the chain value wins when readable)', () => {
    expect(SUBNET_OWNER_HOTKEY).toBe('5DXSBCCKH5ENuyHFNaAvtaMfbhEEWpjSJB4rzc4mJfsc1uvJ');
    expect(SUBNET_OWNER_HOTKEY).toBe(PINNED_MASTER_HOTKEY);
  });
});
