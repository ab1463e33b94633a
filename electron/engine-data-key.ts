// The engine process's data key (electron/engine/wallet/keyed-secret-box.ts), sealed at rest by
// Electron's safeStorage: only main can open it, and hands it to the engine process at start.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './engine/lib/atomic-file.ts';
import type { SecretBox } from './engine/wallet/miner-key-store.ts';

const FILE = 'engine-data-key.sealed';

/**
 * The 32-byte key, made on first use. Null when the OS keyring is not available (the engine then keeps
 * the miner key in a 0600 file and says so). A key the keyring can no longer open is replaced: what it
 * sealed cannot be read any more, and the engine asks for the miner key again.
 */
export function openEngineDataKey(secretsDir: string, box: SecretBox, warn: (line: string) => void): Uint8Array | null {
  if (!box.isAvailable()) return null;
  const file = join(secretsDir, FILE);
  if (existsSync(file)) {
    try {
      const key = Buffer.from(box.decrypt(readFileSync(file)), 'base64');
      if (key.length === 32) return new Uint8Array(key);
    } catch {
      // falls through: a new key
    }
    warn('the OS keyring could not open the engine data key: a new one was made, and a stored miner key must be entered again');
  }
  const key = randomBytes(32);
  mkdirSync(secretsDir, { recursive: true, mode: 0o700 });
  chmodSync(secretsDir, 0o700);
  writeFileAtomic(file, box.encrypt(key.toString('base64')), 0o600);
  return new Uint8Array(key);
}
