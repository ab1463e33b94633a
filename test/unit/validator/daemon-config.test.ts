import { describe, expect, it } from 'vitest';
import { resolveDaemonConfig } from '../../../electron/engine/validator/daemon-config.ts';

const DEV = '5FP2EtpSFAm4BjHkbWcKSKqpHYHa6b6a1R5Pep3BPymyiXdG';

describe('validate daemon configuration', () => {
  it('defaults to finney, the production provider, the pinned master, netuid 53, 300 s and 120 blocks', () => {
    const r = resolveDaemonConfig({ wallet: 'w', hotkey: 'h', dataDir: '/d' }, {});
    expect(r).toEqual({
      ok: true,
      config: {
        wallet: 'w',
        hotkey: 'h',
        walletPath: undefined,
        chainUrl: 'wss://entrypoint-finney.opentensor.ai:443',
        providerUrl: 'https://provider.engy.ai',
        masterHotkey: '5DXSBCCKH5ENuyHFNaAvtaMfbhEEWpjSJB4rzc4mJfsc1uvJ',
        netuid: 53,
        pollS: 300,
        resubmitBlocks: 120,
        dataDir: '/d',
        statePath: '/d/validator/state.json',
        heartbeatFile: '/d/validator/heartbeat.json',
      },
    });
  });

  it('reads an upstream .env.validator (ENGY_SN53_*), flags winning over the environment', () => {
    const env = {
      ENGY_SN53_WALLET: 'ew',
      ENGY_SN53_WALLET_HOTKEY: 'eh',
      ENGY_SN53_NETWORK: 'test',
      ENGY_SN53_API: 'https://staging.example',
      ENGY_SN53_MASTER_HOTKEY: DEV,
      ENGY_SN53_NETUID: '153',
      ENGY_SN53_POLL_S: '60',
      ENGY_SN53_RESUBMIT_BLOCKS: '150',
      ENGY_SN53_STATE_FILE: '/var/lib/engy-sn53/state.json',
      ENGY_SN53_HEARTBEAT_FILE: '/var/lib/engy-sn53/hb.json',
    };
    const r = resolveDaemonConfig({ dataDir: '/d' }, env);
    expect(r).toMatchObject({
      ok: true,
      config: {
        wallet: 'ew',
        hotkey: 'eh',
        chainUrl: 'wss://test.finney.opentensor.ai:443',
        providerUrl: 'https://staging.example',
        masterHotkey: DEV,
        netuid: 153,
        pollS: 60,
        resubmitBlocks: 150,
        statePath: '/var/lib/engy-sn53/state.json',
        heartbeatFile: '/var/lib/engy-sn53/hb.json',
      },
    });
    expect(resolveDaemonConfig({ wallet: 'fw', chain: 'ws://127.0.0.1:9000', pollS: '5' }, env)).toMatchObject({ ok: true, config: { wallet: 'fw', chainUrl: 'ws://127.0.0.1:9000', pollS: 5 } });
  });

  it('refuses half a provider pair, bad numbers and bad URLs, naming each', () => {
    const r = resolveDaemonConfig({ wallet: 'w', hotkey: 'h', master: DEV, resubmitBlocks: '0', chain: 'https://node' }, {});
    expect(r.ok).toBe(false);
    const errors = r.ok ? [] : r.errors;
    expect(errors.some((e) => e.includes('overridden together'))).toBe(true);
    expect(errors.some((e) => e.startsWith('--resubmit-blocks'))).toBe(true);
    expect(errors.some((e) => e.startsWith('--chain'))).toBe(true);
    // Naming the production default of one half is not an override (the service's env template does it).
    expect(resolveDaemonConfig({ wallet: 'w', hotkey: 'h' }, { ENGY_SN53_API: 'https://provider.engy.ai/', ENGY_PANEL_DATA_DIR: '/srv/engy' })).toMatchObject({
      ok: true,
      config: { providerUrl: 'https://provider.engy.ai', masterHotkey: '5DXSBCCKH5ENuyHFNaAvtaMfbhEEWpjSJB4rzc4mJfsc1uvJ', statePath: '/srv/engy/validator/state.json' },
    });
    expect(resolveDaemonConfig({}, {})).toMatchObject({ ok: false, errors: [expect.stringContaining('--wallet'), expect.stringContaining('--hotkey')] });
  });
});
