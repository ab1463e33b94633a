import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SettingsStore } from '../../../electron/engine/settings/settings-store.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import { defaultSettings } from '../../../shared/settings.ts';

function fresh() {
  const dir = mkdtempSync(join(tmpdir(), 'engy-settings-'));
  const hub = new LogHub();
  return { dir, file: join(dir, 'settings.json'), hub, log: hub.logger('settings') };
}

describe('settings store', () => {
  it('starts from defaults and persists updates atomically, leaving no temp files', () => {
    const { dir, file, log } = fresh();
    const s = new SettingsStore(file, log);
    expect(s.get()).toEqual(defaultSettings());
    s.update({ role: 'validate', desktop: { runAtLogin: true } });
    expect(readdirSync(dir)).toEqual(['settings.json']);
    const again = new SettingsStore(file, log);
    expect(again.get().role).toBe('validate');
    expect(again.get().desktop).toEqual({ ...defaultSettings().desktop, runAtLogin: true });
  });

  it('drops invalid fields to their defaults and says so', () => {
    const { file, hub, log } = fresh();
    const bad = { ...defaultSettings(), role: 'admin', theme: 42, validating: { ...defaultSettings().validating, netuid: 'x', pollSeconds: 600 } };
    writeFileSync(file, JSON.stringify(bad));
    const s = new SettingsStore(file, log);
    expect(s.get().role).toBeNull();
    expect(s.get().theme).toBe('system');
    expect(s.get().validating.netuid).toBe(53);
    expect(s.get().validating.pollSeconds).toBe(600);
    const warned = hub
      .recent()
      .map((l) => l.msg)
      .join('\n');
    expect(warned).toMatch(/"role" had an invalid value \("admin"\) and was reset to its default \(null\): Role \(role\) must be one of mine, validate, both, or empty/);
    expect(warned).toMatch(/"validating.netuid" had an invalid value \("x"\)/);
  });

  it('moves a corrupt file aside instead of crashing', () => {
    const { dir, file, log } = fresh();
    writeFileSync(file, '{"role": "mi');
    const s = new SettingsStore(file, log);
    expect(s.get()).toEqual(defaultSettings());
    expect(readdirSync(dir).some((f) => f.startsWith('settings.json.corrupt-'))).toBe(true);
  });

  it('refuses settings written by a newer schema rather than guessing', () => {
    const { file, log } = fresh();
    writeFileSync(file, JSON.stringify({ ...defaultSettings(), schemaVersion: 99 }));
    expect(() => new SettingsStore(file, log)).toThrow(/newer engy panel/);
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).schemaVersion).toBe(99);
  });
});

describe('settings through the one schema', () => {
  it('a hand-edited file with out-of-range values is reset field by field, each named with what is allowed', () => {
    const { file, hub, log } = fresh();
    const d = defaultSettings();
    const hostile = {
      ...d,
      logLevel: 'loud',
      mining: { ...d.mining, workerName: '../../etc', maxInflightOverride: 100000, gpus: [0, 0], checkpointDir: 'relative/dir', gatewayUrl: 'api.engy.ai/gw' },
      validating: { ...d.validating, pollSeconds: 0, resubmitBlocks: -5, chainUrl: 'not a url', providerUrl: 'ftp://provider.engy.ai' },
      desktop: 'yes',
      mutedNotifications: ['gate-at-risk', 'gate-at-risk'],
    };
    writeFileSync(file, JSON.stringify(hostile));
    const s = new SettingsStore(file, log).get();
    expect(s.validating.pollSeconds).toBe(300);
    expect(s.validating.resubmitBlocks).toBe(120);
    expect(s.validating.chainUrl).toBe(d.validating.chainUrl);
    expect(s.validating.providerUrl).toBe(d.validating.providerUrl);
    expect(s.mining.workerName).toBeNull();
    expect(s.mining.maxInflightOverride).toBeNull();
    expect(s.mining.gpus).toBeNull();
    expect(s.mining.checkpointDir).toBeNull();
    expect(s.logLevel).toBe('debug');
    expect(s.desktop).toEqual(d.desktop);
    // A URL typed without its scheme is fixed, not refused; duplicates in a list are dropped.
    expect(s.mining.gatewayUrl).toBe('wss://api.engy.ai/gw');
    expect(s.mutedNotifications).toEqual(['gate-at-risk']);
    const warned = hub.recent().map((l) => l.msg);
    const about = (field: string) => warned.find((w) => w.includes(`"${field}" had an invalid value`)) ?? '';
    expect(about('validating.pollSeconds')).toMatch(/\(0\).*reset to its default \(300\): Poll interval \(validating\.pollSeconds\) must be a whole number from 30 to 3600 seconds/);
    expect(about('validating.resubmitBlocks')).toMatch(/\(-5\).*from 100 to 5000 blocks/);
    expect(about('validating.chainUrl')).toMatch(/"not a url".*must be a ws:\/\/ or wss:\/\/ address/);
    expect(about('mining.workerName')).toMatch(/"\.\.\/\.\.\/etc".*letters, digits/);
    expect(about('mining.maxInflightOverride')).toMatch(/100000.*from 1 to 1024/);
    expect(about('mining.gpus')).toMatch(/names a GPU twice/);
    expect(about('mining.checkpointDir')).toMatch(/absolute folder path/);
    expect(about('validating.providerUrl')).toMatch(/http:\/\/ or https:\/\//);
    expect(about('logLevel')).toMatch(/one of: debug, info, warn, error/);
    expect(about('desktop')).toMatch(/must be an object/);
    expect(warned.some((w) => w.includes('mining.gatewayUrl'))).toBe(false);
  });

  it('ignores prototype-named keys and wrong types at the root without crashing', () => {
    const { file, log } = fresh();
    writeFileSync(file, '{"__proto__": {"role": "mine"}, "constructor": {"prototype": {"x": 1}}, "role": ["mine"], "wallet": {"__proto__": {"name": "evil"}}}');
    const s = new SettingsStore(file, log).get();
    expect(s.role).toBeNull();
    expect(s.wallet).toEqual(defaultSettings().wallet);
    expect(({} as Record<string, unknown>).role).toBeUndefined();
  });

  it('the demo (simulated network) may poll and resubmit faster than mainnet allows', () => {
    const { file, log } = fresh();
    writeFileSync(file, JSON.stringify({ ...defaultSettings(), network: 'simulated', validating: { ...defaultSettings().validating, pollSeconds: 2, resubmitBlocks: 20 } }));
    const s = new SettingsStore(file, log).get();
    expect(s.validating).toMatchObject({ pollSeconds: 2, resubmitBlocks: 20 });
  });

  it('settings.update parses each field, fixes a URL without a scheme, and refuses naming the exact field', () => {
    const { file, log } = fresh();
    const s = new SettingsStore(file, log);
    expect(
      s.update({ mining: { externalServeUrls: ['127.0.0.1:30000'], gatewayUrl: 'gw.example.org/gw', gpus: [1] }, validating: { chainUrl: '127.0.0.1:9944', providerUrl: 'localhost:8080' } }),
    ).toMatchObject({
      mining: { externalServeUrls: ['http://127.0.0.1:30000'], gatewayUrl: 'wss://gw.example.org/gw', gpus: [1] },
      validating: { chainUrl: 'ws://127.0.0.1:9944', providerUrl: 'http://localhost:8080' },
    });
    const refusal = (patch: unknown) => {
      try {
        s.update(patch);
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refusal({ mining: { externalServeUrls: ['http://a b'] } })).toBe(
      'The setting "mining.externalServeUrls" was not saved: Serve URLs (mining.externalServeUrls) must be a http:// or https:// address, e.g. http://127.0.0.1:30000.',
    );
    expect(refusal({ validating: { pollSeconds: 0 } })).toMatch(/"validating.pollSeconds" was not saved: .*from 30 to 3600 seconds/);
    expect(refusal({ mining: { maxInflightOverride: 100000 } })).toMatch(/"mining.maxInflightOverride".*1 to 1024/);
    expect(refusal({ mining: { workerName: '../../etc' } })).toMatch(/"mining.workerName"/);
    // One rule with `mine --gateway`: plain ws:// only to this machine (the miner key travels on it).
    expect(refusal({ mining: { gatewayUrl: 'ws://10.0.0.1/gw' } })).toBe(
      'The setting "mining.gatewayUrl" was not saved: Gateway (mining.gatewayUrl) ws://10.0.0.1/gw is plain ws:// to another machine: the miner key would travel in clear text. Use wss:// (ws:// is only for a gateway on this machine).',
    );
    expect(s.update({ mining: { gatewayUrl: 'ws://127.0.0.1:8080/gw' } }).mining.gatewayUrl).toBe('ws://127.0.0.1:8080/gw');
    expect(refusal({ validating: { masterHotkey: '5Evil' } })).toMatch(/"validating.masterHotkey" cannot be changed here/);
    expect(refusal({ network: 'simulated' })).toMatch(/"network" cannot be changed here/);
    expect(refusal({ __proto__: { role: 'mine' } })).toBe('accepted');
    expect(refusal(JSON.parse('{"__proto__": {"role": "mine"}}'))).toMatch(/"__proto__" cannot be changed here/);
    expect(refusal({ mining: 'x' })).toMatch(/"mining" must be an object/);
    expect(refusal({ role: null })).toMatch(/"role".*one of mine, validate, both/);
    expect(refusal('x'.repeat(10))).toMatch(/must be an object/);
    expect(refusal({ mining: { checkpointDir: 'x'.repeat(5000) } })).toMatch(/at most 4096 characters/);
    // Nothing refused was written.
    expect(new SettingsStore(file, log).get().validating.pollSeconds).toBe(300);
  });

  it('every setting the UI changes can be reset to its default', () => {
    const { file, log } = fresh();
    const s = new SettingsStore(file, log);
    const d = defaultSettings();
    s.update({
      logLevel: 'warn',
      mining: { gpus: [0], maxInflightOverride: 16, checkpointDir: '/data/ckpt', gatewayUrl: 'ws://127.0.0.1:1/gw' },
      validating: { chainUrl: 'ws://127.0.0.1:9944', providerUrl: 'http://127.0.0.1:1' },
    });
    const back = s.update({
      logLevel: d.logLevel,
      mining: { gpus: null, maxInflightOverride: null, checkpointDir: null, gatewayUrl: d.mining.gatewayUrl },
      validating: { chainUrl: d.validating.chainUrl, providerUrl: d.validating.providerUrl },
    });
    expect(back).toEqual({ ...d });
  });
});

describe('settings migrations', () => {
  it('schema 1 gains the GPU choice (all) and the log level (debug); schema 2 keeps both', () => {
    for (const [name, gpus, level] of [
      ['v1.json', null, 'debug'],
      ['v2.json', [0, 1], 'warn'],
    ] as const) {
      const { file, log } = fresh();
      writeFileSync(file, readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'settings', name)));
      const s = new SettingsStore(file, log).get();
      expect(s.mining.gpus).toEqual(gpus);
      expect(s.logLevel).toBe(level);
      expect(s.mining.checkpointDir).toBe('/data/Qwen3.6-35B-A3B-FP8');
    }
  });
});
