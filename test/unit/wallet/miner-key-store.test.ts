import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MinerKeyStore, maskMinerKey, MINER_KEY_ENV } from '../../../electron/engine/wallet/miner-key-store.ts';
import { AppFailure } from '../../../shared/errors.ts';
import { FakeSecretBox } from '../../doubles/secret-box.ts';

const KEY = 'ek_live_8c1d2e7f6a5b4c3d2e1f3f9a';
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'engy-secrets-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppFailure) return e.code;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('MinerKeyStore', () => {
  it('masks keys', () => {
    expect(maskMinerKey(KEY)).toBe('ek_…3f9a');
    expect(maskMinerKey('abcdefghijklmnop')).toBe('ab…mnop');
  });

  it('stores through the OS keyring box, never in clear, and is replaceable', () => {
    const root = tmp();
    const secretsDir = join(root, 'secrets');
    const store = new MinerKeyStore({ secretsDir, secretBox: new FakeSecretBox(true), env: {} });
    expect(store.status()).toEqual({ present: false, masked: null, storage: 'os-keyring' });
    expect(code(() => store.get())).toBe('miner-key-missing');
    expect(store.set(`  ${KEY}\n`)).toEqual({ present: true, masked: 'ek_…3f9a', storage: 'os-keyring' });
    for (const f of readdirSync(secretsDir)) expect(readFileSync(join(secretsDir, f), 'utf8')).not.toContain(KEY);
    expect(statSync(secretsDir).mode & 0o777).toBe(0o700);
    // A fresh store (next start) reads it back through the box.
    const again = new MinerKeyStore({ secretsDir, secretBox: new FakeSecretBox(true), env: {} });
    expect(again.get()).toBe(KEY);
    again.set('ek_live_aaaaaaaaaaaaaaaa0000');
    expect(new MinerKeyStore({ secretsDir, secretBox: new FakeSecretBox(true), env: {} }).status().masked).toBe('ek_…0000');
    expect(code(() => again.set('short'))).toBe('bad-request');
    again.clear();
    expect(again.status().present).toBe(false);
  });

  it('falls back to a 0600 file with a clear warning when the keyring is unavailable', () => {
    const secretsDir = join(tmp(), 'secrets');
    const store = new MinerKeyStore({ secretsDir, secretBox: new FakeSecretBox(false), env: {} });
    const s = store.set(KEY);
    expect(s.storage).toBe('file');
    expect(s.warning).toMatch(/OS keyring is not available/);
    const [file] = readdirSync(secretsDir);
    expect(statSync(join(secretsDir, file!)).mode & 0o777).toBe(0o600);
    expect(new MinerKeyStore({ secretsDir, env: {} }).get()).toBe(KEY);
  });

  it('reads ENGY_MINER_KEY_FILE for the headless miner and refuses to overwrite it', () => {
    const root = tmp();
    const keyFile = join(root, 'miner.key');
    writeFileSync(keyFile, KEY + '\n', { mode: 0o600 });
    const store = new MinerKeyStore({ secretsDir: join(root, 'secrets'), env: { [MINER_KEY_ENV]: keyFile } });
    expect(store.status()).toEqual({ present: true, masked: 'ek_…3f9a', storage: 'env-file' });
    expect(store.get()).toBe(KEY);
    expect(code(() => store.set(KEY))).toBe('conflict');
    const missing = new MinerKeyStore({ secretsDir: join(root, 'secrets'), env: { [MINER_KEY_ENV]: join(root, 'nope') } });
    expect(missing.status().warning).toMatch(/cannot be read/);
    expect(code(() => missing.get())).toBe('miner-key-missing');
  });
});
