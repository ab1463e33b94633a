// Lists btcli wallets from public files only: no secret is read, no password asked. Reading the
// plaintext hotkey JSON for its ss58Address is allowed (btcli itself does it) but only that field is kept.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { HotkeyEntry, KeyfileEncryption, WalletEntry, WalletListing } from '../../../shared/wallet.ts';
import { detectEncryption, keyfileAddress, parseKeyfile } from './keyfile-format.ts';

function fileEncryption(path: string): KeyfileEncryption {
  try {
    if (!statSync(path).isFile()) return 'missing';
    const fd = readFileSync(path);
    return detectEncryption(fd);
  } catch {
    return 'missing';
  }
}

function publicAddress(path: string): string | null {
  try {
    const data = readFileSync(path);
    if (detectEncryption(data) !== 'none') return null;
    return keyfileAddress(parseKeyfile(data));
  } catch {
    return null;
  }
}

function listDir(path: string): string[] {
  try {
    return readdirSync(path).sort((a, b) => a.localeCompare(b));
  } catch {
    return [];
  }
}

export function scanHotkeys(walletDir: string, problems: string[]): HotkeyEntry[] {
  const dir = join(walletDir, 'hotkeys');
  const names = listDir(dir).filter((n) => !n.startsWith('.') && !n.endsWith('pub.txt') && !n.endsWith('.tmp'));
  const out: HotkeyEntry[] = [];
  for (const name of names) {
    const file = join(dir, name);
    try {
      if (!statSync(file).isFile()) continue;
    } catch {
      continue;
    }
    const pubFile = join(dir, `${name}pub.txt`);
    const hasPublicFile = existsSync(pubFile);
    const encryption = fileEncryption(file);
    const ss58Address = (hasPublicFile ? publicAddress(pubFile) : null) ?? (encryption === 'none' ? publicAddress(file) : null);
    if (encryption === 'unreadable') problems.push(`hotkeys/${name} is not a bittensor keyfile.`);
    else if (ss58Address === null) problems.push(`hotkeys/${name}: address unknown (encrypted and no ${name}pub.txt).`);
    out.push({ name, ss58Address, encryption, hasPublicFile });
  }
  return out;
}

export function scanWallet(walletPath: string, name: string): WalletEntry {
  const dir = join(walletPath, name);
  const problems: string[] = [];
  const coldkeypub = join(dir, 'coldkeypub.txt');
  const coldkeyAddress = existsSync(coldkeypub) ? publicAddress(coldkeypub) : null;
  if (existsSync(coldkeypub) && coldkeyAddress === null) problems.push('coldkeypub.txt cannot be read.');
  const coldkeyEncryption = fileEncryption(join(dir, 'coldkey'));
  if (coldkeyEncryption === 'ansible-vault' || coldkeyEncryption === 'fernet') problems.push('The coldkey uses a legacy encryption: re-import it with `btcli w regen_coldkey`.');
  return { name, coldkeyAddress, coldkeyEncryption, hotkeys: scanHotkeys(dir, problems), problems };
}

/** Every folder under the wallet path that looks like a btcli wallet (has a coldkey, coldkeypub.txt or hotkeys/). */
export function listWallets(walletPath: string): WalletListing {
  if (!existsSync(walletPath)) return { walletPath, exists: false, wallets: [] };
  const wallets: WalletEntry[] = [];
  for (const name of listDir(walletPath)) {
    if (name.startsWith('.')) continue;
    const dir = join(walletPath, name);
    try {
      if (!statSync(dir).isDirectory()) continue;
    } catch {
      continue;
    }
    if (!['coldkey', 'coldkeypub.txt', 'hotkeys'].some((f) => existsSync(join(dir, f)))) continue;
    wallets.push(scanWallet(walletPath, name));
  }
  return { walletPath, exists: true, wallets };
}
