// Drives every wallet service through one LogHub and proves no secret reaches a log line or a snapshot,
// including a careless log line that interpolates a secret (the redactor must catch it).
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import { createHotkey } from '../../../electron/engine/wallet/hotkey-create.ts';
import { loadHotkeySigner } from '../../../electron/engine/wallet/hotkey-signer.ts';
import { listWallets } from '../../../electron/engine/wallet/wallet-scan.ts';
import { MinerKeyStore } from '../../../electron/engine/wallet/miner-key-store.ts';
import { RegistrationService } from '../../../electron/engine/wallet/registration-service.ts';
import { parseKeyfile } from '../../../electron/engine/wallet/keyfile-format.ts';
import { RegistrationChain } from '../../doubles/registration-chain.ts';
import { SettingsStore } from '../../../electron/engine/settings/settings-store.ts';
import { WalletController } from '../../../electron/engine/roles/wallet-controller.ts';
import { FakeSecretBox } from '../../doubles/secret-box.ts';
import { DEV_MNEMONIC_B, TEST_KDF, appFailure, tempWalletDirs, writeColdkey } from '../../doubles/btcli-wallet.ts';

const dirs = tempWalletDirs();
afterEach(() => dirs.cleanup());

describe('secrets stay out of logs and snapshots', () => {
  it('never shows the mnemonic, seed, private key, coldkey password or miner key', async () => {
    const hub = new LogHub();
    const log = hub.logger('wallet');
    const walletPath = dirs.make();
    const env = {};
    const COLD_PW = 'coldkey-password-42';
    const MINER_KEY = 'ek_live_0123456789abcdef3f9a';
    const cold = await writeColdkey({ walletPath, wallet: 'w', mnemonic: DEV_MNEMONIC_B, password: COLD_PW, kdf: TEST_KDF });

    const created = await createHotkey({ walletPath, wallet: 'w', hotkey: 'h', source: { kind: 'generate' }, redactor: hub.redactor });
    const file = parseKeyfile(readFileSync(join(walletPath, 'w', 'hotkeys', 'h')));
    const secrets = [DEV_MNEMONIC_B, created.mnemonic!, file.secretSeed!, file.privateKey!, file.privateKey!.slice(2), MINER_KEY, COLD_PW];
    // Careless line right after creation: creating the key must already have registered its secrets.
    log.info(`created with ${created.mnemonic} / ${file.secretSeed} / ${file.privateKey}`);

    const signer = await loadHotkeySigner({ walletPath, wallet: 'w', hotkey: 'h', redactor: hub.redactor, env });
    const store = new MinerKeyStore({ secretsDir: join(walletPath, 'secrets'), secretBox: new FakeSecretBox(false), env, redactor: hub.redactor, logger: log });
    store.set(MINER_KEY);
    const chain = new RegistrationChain();
    chain.balances.set(cold.address, 5_000_000_000n);
    const reg = new RegistrationService({ chain, walletPath, env, logger: log, redactor: hub.redactor, kdf: TEST_KDF });
    await appFailure(reg.register({ hotkey: signer.address, coldkey: { kind: 'password', wallet: 'w', password: 'wrong' }, mode: 'burned-register' }));
    const done = await reg.register({ hotkey: signer.address, coldkey: { kind: 'password', wallet: 'w', password: COLD_PW }, mode: 'register-limit', maxCostRao: 2_000_000_000n });

    // A careless line: the redactor, not the author's discipline, must keep these out.
    log.error(`debug dump: ${created.mnemonic} ${file.secretSeed} ${file.privateKey} ${store.get()}`);
    // The coldkey's phrase was registered when it was decrypted for the registration.
    log.warn(`coldkey was: ${DEV_MNEMONIC_B}`);

    const snapshots = [listWallets(walletPath), store.status(), await reg.status({ hotkey: signer.address, wallet: 'w' }), done, { created: { ...created, mnemonic: undefined } }];
    const lines = hub.recent({ limit: 10_000 });
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.some((l) => l.msg.includes('«redacted»'))).toBe(true);
    for (const secret of secrets) {
      for (const l of lines) expect(l.msg).not.toContain(secret);
      for (const s of snapshots) expect(JSON.stringify(s)).not.toContain(secret);
    }
    expect(JSON.stringify(store.status())).toContain('ek_…3f9a');
  });
});

describe('coldkey secrets stay out of logs and snapshots too', () => {
  it('a created and an imported coldkey: words and passwords reach neither the logs nor the wallet snapshot', async () => {
    const hub = new LogHub();
    const walletPath = dirs.make();
    const settings = new SettingsStore(join(walletPath, 'settings.json'), hub.logger('settings'));
    settings.update({ wallet: { path: walletPath, name: null, hotkey: null } });
    const minerKeys = new MinerKeyStore({ secretsDir: join(walletPath, 'secrets'), secretBox: new FakeSecretBox(false), env: {}, redactor: hub.redactor });
    const wallet = new WalletController({ settings, minerKeys, logs: hub, openChain: () => Promise.reject(new Error('no chain in this test')), kdf: TEST_KDF });
    const PW1 = 'first-coldkey-password';
    const PW2 = 'second-coldkey-password';
    const created = await wallet.createColdkey('c1', PW1);
    expect(created.mnemonic!.split(' ')).toHaveLength(12);
    const imported = await wallet.importColdkey('c2', DEV_MNEMONIC_B, PW2);
    expect(imported).toEqual({ ss58Address: expect.stringMatching(/^5/) });
    expect(JSON.stringify(imported)).not.toContain(DEV_MNEMONIC_B);
    const careless = hub.logger('wallet');
    careless.info(`oops ${created.mnemonic} ${PW1} ${DEV_MNEMONIC_B} ${PW2}`);
    const lines = hub
      .recent({ limit: 10_000 })
      .map((l) => l.msg)
      .join('\n');
    const snap = JSON.stringify(wallet.snapshot());
    expect(snap).toContain(created.ss58Address);
    for (const secret of [created.mnemonic!, PW1, PW2, DEV_MNEMONIC_B]) {
      expect(lines).not.toContain(secret);
      expect(snap).not.toContain(secret);
    }
    expect(lines).toContain('«redacted»');
  });
});
