import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import { apiMessage, heartbeatBody, heartbeatVersion, signedHeaders } from '../../../electron/engine/validator/heartbeat.ts';
import { sha256Hex } from '../../../electron/engine/validator/payload-verify.ts';
import { devKey } from '../../doubles/provider.ts';

const { decodeAddress, sr25519Verify } = polkadot('@polkadot/util-crypto');

describe('provider heartbeat', () => {
  it('is compact JSON with synced_epoch only when known and consensus only with a digest', () => {
    expect(heartbeatBody('engy-panel 0.1.0', null, null)).toBe('{"v":1,"version":"engy-panel 0.1.0"}');
    expect(heartbeatBody('x', 4, null)).toBe('{"v":1,"version":"x","synced_epoch":4}');
    expect(heartbeatBody('x', 4, 'ab')).toBe('{"v":1,"version":"x","synced_epoch":4,"consensus":{"epoch_index":4,"digest":"ab"}}');
  });

  it('signs engy-sn53:api:v1:<netuid>:POST:<path>:<ts>:<sha256 body> with the validator hotkey', () => {
    const key = devKey('//ValidatorHot');
    const body = heartbeatBody('x', 4, 'ab');
    const h = signedHeaders(key, 53, '/api/subnet/v1/validator/heartbeat', body, 1_700_000_000);
    expect(h['X-Validator-Hotkey']).toBe(key.address);
    expect(h['X-Validator-Ts']).toBe('1700000000');
    expect(h['Content-Type']).toBe('application/json');
    const msg = `engy-sn53:api:v1:53:POST:/api/subnet/v1/validator/heartbeat:1700000000:${sha256Hex(body)}`;
    expect(apiMessage(53, 'post', '/api/subnet/v1/validator/heartbeat', 1_700_000_000, body)).toBe(msg);
    expect(sr25519Verify(Buffer.from(msg), Buffer.from(h['X-Validator-Sig']!, 'hex'), decodeAddress(key.address))).toBe(true);
  });
});

describe('the version the heartbeat names (issue 32 item 8)', () => {
  it("is '<client> <version>' as the reference sends 'engy-lv 0.4.4', 'unknown' when there is none", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(heartbeatVersion(pkg.version)).toBe(`engy-panel ${pkg.version}`);
    expect(heartbeatVersion(pkg.version)).toMatch(/^engy-panel \d+\.\d+\.\d+\S*$/);
    for (const bad of ['', '  ', null, undefined, 'two words']) expect(heartbeatVersion(bad)).toBe('engy-panel unknown');
    expect(JSON.parse(heartbeatBody(heartbeatVersion('1.2.3'), 7, 'ab'))).toEqual({ v: 1, version: 'engy-panel 1.2.3', synced_epoch: 7, consensus: { epoch_index: 7, digest: 'ab' } });
  });
});
