// A miner key verdict belongs to the hotkey selected when the gateway was asked: after switching to
// another hotkey the wallet snapshot no longer carries "admitted" (the Setup step and the pre-flight
// check stop being green), and checking again under the new selection records it for that one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import { SettingsStore } from '../../../electron/engine/settings/settings-store.ts';
import { MinerKeyStore } from '../../../electron/engine/wallet/miner-key-store.ts';
import { WalletController } from '../../../electron/engine/roles/wallet-controller.ts';
import { minerKeyCheck } from '../../../electron/engine/preflight/checks.ts';
import type { PreflightFacts } from '../../../electron/engine/preflight/checks.ts';
import { GatewayDouble } from '../../doubles/gateway/gateway-double.ts';
import { FakeSecretBox } from '../../doubles/secret-box.ts';

const GOOD = 'mk-known-to-the-gateway-0001';
const hw = { host: 'rig', cpus: 16, ram_gb: 64, gpu: 'NVIDIA GeForce RTX 4090', gpu_count: 1, gpu_mem_gb: 24, gpus: '1x NVIDIA GeForce RTX 4090', parallelism: 'tp' };

describe('miner key verdict per selected hotkey', () => {
  const gw = new GatewayDouble({ workers: 8, keys: [GOOD], probe: false, judgeAfterMs: 60_000 });
  const dir = mkdtempSync(join(tmpdir(), 'engy-mk-hotkey-'));
  let url: string;
  beforeAll(async () => {
    url = await gw.start();
  });
  afterAll(async () => {
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('drops "admitted" when another hotkey is selected, and records a new check for the new one', async () => {
    const hub = new LogHub();
    const settings = new SettingsStore(join(dir, 'settings.json'), hub.logger('settings'));
    settings.update({ wallet: { path: dir, name: 'w', hotkey: 'registered' } });
    const minerKeys = new MinerKeyStore({ secretsDir: join(dir, 'secrets'), secretBox: new FakeSecretBox(false), env: {}, redactor: hub.redactor });
    const helloContext = async () => ({ gatewayUrl: url, model: 'qwen3.6-35b-a3b', modelRoot: 'ab'.repeat(32), hw, versions: { 'engy-panel': 'test' }, timeoutMs: 10_000 });
    const wallet = new WalletController({ settings, minerKeys, logs: hub, openChain: () => Promise.reject(new Error('no chain in this test')), helloContext });
    minerKeys.set(GOOD);
    const verdict = await wallet.verifyMinerKey();
    expect(verdict).toMatchObject({ state: 'admitted', hotkey: 'w/registered' });
    expect(wallet.snapshot().minerKeyCheck?.state).toBe('admitted');

    let changed = 0;
    wallet.onDidChange(() => changed++);
    settings.update({ wallet: { hotkey: 'fresh-unregistered' } });
    expect(changed).toBe(1);
    const snap = wallet.snapshot();
    expect(snap.minerKeyCheck).toBeNull();
    // The pre-flight check reads the same snapshot: no longer "admitted by the gateway".
    const check = minerKeyCheck({ minerKey: snap.minerKey, minerKeyVerification: snap.minerKeyCheck } as PreflightFacts);
    expect(check.sentence).not.toMatch(/admitted/);

    // Back to the hotkey it was checked under: the verdict applies again.
    settings.update({ wallet: { hotkey: 'registered' } });
    expect(wallet.snapshot().minerKeyCheck?.state).toBe('admitted');
    settings.update({ wallet: { hotkey: 'fresh-unregistered' } });
    expect((await wallet.verifyMinerKey()).hotkey).toBe('w/fresh-unregistered');
    expect(wallet.snapshot().minerKeyCheck?.hotkey).toBe('w/fresh-unregistered');
  });
});
