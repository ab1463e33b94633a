// The SecretBox port (engine/wallet/miner-key-store.ts) over Electron safeStorage: Keychain on macOS,
// DPAPI on Windows, libsecret/kwallet on Linux. Lives outside engine/ because it imports electron.
import { safeStorage } from 'electron';
import type { SecretBox } from './engine/wallet/miner-key-store.ts';

export const electronSecretBox: SecretBox = {
  isAvailable(): boolean {
    if (!safeStorage.isEncryptionAvailable()) return false;
    // On Linux without a keyring daemon Electron falls back to a hard-coded key ("basic_text"): that is
    // no protection, so say so (the store then uses its 0600 file and shows the warning) instead of pretending.
    return process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text';
  },
  encrypt: (plain) => safeStorage.encryptString(plain),
  decrypt: (data) => safeStorage.decryptString(data),
};
