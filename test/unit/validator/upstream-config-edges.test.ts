// Upstream's tests/test_validator.py configuration cases that had no counterpart here (see
// docs/validator.md, the table): what an operator must supply, what stays overridable.
import { describe, expect, it } from 'vitest';
import { resolveDaemonConfig } from '../../../electron/engine/validator/daemon-config.ts';
import { BLOCK_S, DEFAULT_POLL_S, DEFAULT_RESUBMIT_BLOCKS } from '../../../electron/engine/validator/constants.ts';
import { decide, effectiveInterval } from '../../../electron/engine/validator/schedule.ts';

const DEV = '5FP2EtpSFAm4BjHkbWcKSKqpHYHa6b6a1R5Pep3BPymyiXdG';

describe('configuration edges (upstream test_validator.py)', () => {
  it('the default poll leaves room under the resubmit interval (four polls per interval at least)', () => {
    const r = resolveDaemonConfig({ dataDir: '/d' }, { ENGY_SN53_WALLET: 'w', ENGY_SN53_WALLET_HOTKEY: 'hk' });
    expect(r).toMatchObject({ ok: true, config: { pollS: DEFAULT_POLL_S } });
    expect(DEFAULT_POLL_S * 4).toBeLessThanOrEqual(DEFAULT_RESUBMIT_BLOCKS * BLOCK_S);
  });

  it('the wallet and hotkey names are the only things an operator must supply, and the refusal names the variable', () => {
    expect(resolveDaemonConfig({ dataDir: '/d' }, {})).toMatchObject({ ok: false, errors: [expect.stringContaining('ENGY_SN53_WALLET)'), expect.stringContaining('ENGY_SN53_WALLET_HOTKEY')] });
    const half = resolveDaemonConfig({ dataDir: '/d' }, { ENGY_SN53_WALLET: 'my-coldkey' });
    expect(half).toMatchObject({ ok: false, errors: [expect.stringContaining('ENGY_SN53_WALLET_HOTKEY')] });
    expect(resolveDaemonConfig({ dataDir: '/d' }, { ENGY_SN53_WALLET: 'my-coldkey', ENGY_SN53_WALLET_HOTKEY: 'my-hotkey' })).toMatchObject({
      ok: true,
      config: { wallet: 'my-coldkey', hotkey: 'my-hotkey', providerUrl: 'https://provider.engy.ai', masterHotkey: '5DXSBCCKH5ENuyHFNaAvtaMfbhEEWpjSJB4rzc4mJfsc1uvJ' },
    });
  });

  it('differs: the staging provider is overridable, but only together with its master key', () => {
    const env = { ENGY_SN53_WALLET: 'w', ENGY_SN53_WALLET_HOTKEY: 'hk', ENGY_SN53_API: 'https://provider.teby.ai' };
    expect(resolveDaemonConfig({ dataDir: '/d' }, env)).toMatchObject({ ok: false, errors: [expect.stringContaining('overridden together')] });
    expect(resolveDaemonConfig({ dataDir: '/d' }, { ...env, ENGY_SN53_MASTER_HOTKEY: DEV })).toMatchObject({ ok: true, config: { providerUrl: 'https://provider.teby.ai', masterHotkey: DEV } });
    // Upstream takes any string as the master; a key that is not SS58 could never verify anything.
    expect(resolveDaemonConfig({ dataDir: '/d' }, { ...env, ENGY_SN53_MASTER_HOTKEY: '5Staging' }).ok).toBe(false);
  });

  it('the resubmit interval is raisable for a higher weights rate limit, and the schedule honours it', () => {
    const r = resolveDaemonConfig({ dataDir: '/d' }, { ENGY_SN53_WALLET: 'w', ENGY_SN53_WALLET_HOTKEY: 'hk', ENGY_SN53_RESUBMIT_BLOCKS: '500' });
    expect(r).toMatchObject({ ok: true, config: { resubmitBlocks: 500 } });
    const interval = effectiveInterval(500, 100);
    const at = (blocks: number) => decide({ epochIndex: 1, lastApplied: 1, currentBlock: 1000 + blocks, lastSubmitBlock: 1000, nowMs: 0, lastSubmitMs: 0, intervalBlocks: interval }).submit;
    expect(at(499)).toBe(false);
    expect(at(500)).toBe(true);
    for (const bad of ['0', '-5', '1.5', 'lots', '1e9999'])
      expect(resolveDaemonConfig({ dataDir: '/d' }, { ENGY_SN53_WALLET: 'w', ENGY_SN53_WALLET_HOTKEY: 'hk', ENGY_SN53_RESUBMIT_BLOCKS: bad }).ok, bad).toBe(false);
  });
});
