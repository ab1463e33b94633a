// A hotkey's address without touching its secret: `<name>pub.txt` first, else the plaintext keyfile's
// public fields (for wallets made before btwallet wrote pub files).
import { readFileSync } from 'node:fs';
import { AppFailure } from '../../../shared/errors.ts';
import { detectEncryption, keyfileAddress, parseKeyfile } from './keyfile-format.ts';
import { keyPaths, resolveWalletPath } from './wallet-location.ts';

export function loadHotkeyAddress(opts: { walletPath?: string; wallet: string; hotkey: string; env?: NodeJS.ProcessEnv }): string {
  const paths = keyPaths(resolveWalletPath(opts.walletPath, opts.env ?? process.env), opts.wallet);
  for (const file of [paths.hotkeypub(opts.hotkey), paths.hotkey(opts.hotkey)]) {
    let data: Uint8Array;
    try {
      data = readFileSync(file);
    } catch {
      continue;
    }
    if (detectEncryption(data) !== 'none') continue;
    try {
      const address = keyfileAddress(parseKeyfile(data));
      if (address) return address;
    } catch {
      // Try the next file.
    }
  }
  throw new AppFailure(
    'wallet-not-found',
    `No readable hotkey "${opts.hotkey}" in wallet "${opts.wallet}" (${paths.hotkeysDir}): check the names, or create it with \`engy-panel wallet create-hotkey\`.`,
  );
}
