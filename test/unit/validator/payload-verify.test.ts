import { describe, expect, it } from 'vitest';
import { verifyPayload, epochMessage, sha256Hex } from '../../../electron/engine/validator/payload-verify.ts';
import { DEV_MASTER_URI, DEV_WRONG_KEY_URI, devKey, signedPayload } from '../../doubles/provider.ts';

const master = devKey(DEV_MASTER_URI);
const opts = { masterHotkey: master.address, netuid: 53 };
const A = devKey('//MinerA').address;
const B = devKey('//MinerB').address;

function resign(p: ReturnType<typeof signedPayload>, resultJson: string) {
  const digest = sha256Hex(resultJson);
  const sig = master.sign(Buffer.from(epochMessage(53, p.epoch_index, digest)));
  return { ...p, result_json: resultJson, digest, signature: Buffer.from(sig).toString('hex') };
}

describe('verifyPayload', () => {
  it('accepts a payload signed by the pinned master and takes the vector from result_json only', () => {
    const p = signedPayload({
      epochIndex: 7,
      weights: [
        [A, 100],
        [B, 300],
      ],
    });
    const v = verifyPayload({ ...p, weights: [[B, 65535]] }, opts);
    expect(v).toMatchObject({
      ok: true,
      epochIndex: 7,
      digest: p.digest,
      weights: [
        [A, 100],
        [B, 300],
      ],
    });
  });

  it('refuses in protocol order: object, version, netuid, result_json, digest, signature, result', () => {
    const p = signedPayload({ epochIndex: 7, weights: [[A, 1]] });
    const reason = (x: unknown) => {
      const v = verifyPayload(x, opts);
      return v.ok ? 'ok' : v.reason;
    };
    expect(reason([p])).toBe('malformed');
    expect(reason(null)).toBe('malformed');
    // A wrong version is reported before a wrong netuid or a bad digest.
    expect(reason({ ...p, v: 2, netuid: 1, digest: 'ff' })).toBe('version');
    expect(reason({ ...p, netuid: 1, digest: 'ff' })).toBe('netuid');
    expect(reason({ ...p, result_json: { weights: [] } })).toBe('malformed');
    expect(reason({ ...p, digest: 'ff', signature: 'zz' })).toBe('digest');
    expect(reason({ ...p, digest: p.digest.toUpperCase() })).toBe('digest');
    expect(reason({ ...p, signature: p.signature.slice(0, 120) })).toBe('signature');
    expect(reason({ ...p, signature: `0x${p.signature}` })).toBe('signature');
    expect(reason({ ...p, signature: 'ab'.repeat(64) })).toBe('signature');
    expect(reason(p)).toBe('ok');
  });

  it('refuses a payload signed by another key, and one whose result_json changed after signing', () => {
    const wrong = signedPayload({ epochIndex: 7, weights: [[A, 1]], signer: devKey(DEV_WRONG_KEY_URI) });
    expect(verifyPayload(wrong, opts)).toMatchObject({ ok: false, reason: 'signature' });
    const p = signedPayload({ epochIndex: 7, weights: [[A, 1]] });
    const tampered = p.result_json.replace('"weights":[[', '"weights":[["x",5],[');
    expect(verifyPayload({ ...p, result_json: tampered }, opts)).toMatchObject({ ok: false, reason: 'digest' });
    expect(verifyPayload({ ...p, result_json: tampered, digest: sha256Hex(tampered) }, opts)).toMatchObject({ ok: false, reason: 'signature' });
    // The signature binds the epoch index: the same bytes announced as another epoch fail.
    expect(verifyPayload({ ...p, epoch_index: 8 }, opts)).toMatchObject({ ok: false, reason: 'signature' });
  });

  it('checks the signed result: epoch and netuid match, weights are [string, integer 0..65535] pairs', () => {
    const p = signedPayload({ epochIndex: 7, weights: [[A, 1]] });
    const base = JSON.parse(p.result_json) as Record<string, unknown>;
    const bad = (patch: Record<string, unknown>) => verifyPayload(resign(p, JSON.stringify({ ...base, ...patch })), opts);
    expect(bad({ epoch_index: 6 })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(bad({ netuid: 52 })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(bad({ weights: [[A, true]] })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(bad({ weights: [[A, 1.5]] })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(bad({ weights: [[A, 65536]] })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(bad({ weights: [[A, -1]] })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(bad({ weights: [[5, 1]] })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(bad({ weights: [[A, 1, 2]] })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(bad({ weights: { [A]: 1 } })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(verifyPayload(resign(p, '[1,2]'), opts)).toMatchObject({ ok: false, reason: 'malformed' });
    expect(verifyPayload(resign(p, 'not json'), opts)).toMatchObject({ ok: false, reason: 'malformed' });
    expect(
      bad({
        weights: [
          [A, 0],
          [B, 65535],
        ],
      }),
    ).toMatchObject({ ok: true });
  });

  it('hashes result_json as UTF-8', () => {
    const p = signedPayload({ epochIndex: 3, weights: [[A, 1]], resultExtra: { note: 'énergie ⚡' } });
    expect(p.digest).toBe(sha256Hex(Buffer.from(p.result_json, 'utf8')));
    expect(verifyPayload(p, opts).ok).toBe(true);
  });
});
