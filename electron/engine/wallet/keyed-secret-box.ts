// A SecretBox under a data key the engine holds only in memory: the desktop engine process cannot
// call Electron's safeStorage (it lives in main, and the box must answer synchronously), so main
// keeps one random data key sealed by safeStorage on disk and hands it to the engine process at
// start (envelope encryption). At rest nothing changes: the miner key is sealed under a key that
// only the OS keyring can open. AES-256-GCM: tampering or another key fails to decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretBox } from './miner-key-store.ts';

const MAGIC = Buffer.from('EKB1');

export function keyedSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the engine data key must be 32 bytes');
  const k = Buffer.from(key);
  return {
    isAvailable: () => true,
    encrypt(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', k, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([MAGIC, iv, c.getAuthTag(), body]);
    },
    decrypt(data) {
      if (data.length < 32 || !data.subarray(0, 4).equals(MAGIC)) throw new Error('not sealed by the engine data key');
      const d = createDecipheriv('aes-256-gcm', k, data.subarray(4, 16));
      d.setAuthTag(data.subarray(16, 32));
      return Buffer.concat([d.update(data.subarray(32)), d.final()]).toString('utf8');
    },
  };
}
