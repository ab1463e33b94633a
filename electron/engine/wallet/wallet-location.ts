import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { AppFailure } from '../../../shared/errors.ts';

/** btwallet's default (constants.rs BT_WALLET_PATH); `BT_WALLET_PATH` overrides it, an explicit folder overrides both. */
export function resolveWalletPath(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = explicit && explicit.length > 0 ? explicit : env.BT_WALLET_PATH && env.BT_WALLET_PATH.length > 0 ? env.BT_WALLET_PATH : '~/.bittensor/wallets';
  const expanded = chosen === '~' ? homedir() : chosen.startsWith('~/') ? join(homedir(), chosen.slice(2)) : chosen;
  return isAbsolute(expanded) ? expanded : resolve(expanded);
}

/**
 * Wallet and hotkey names become path segments; the UI sends them, so refuse anything that could
 * climb out of the wallet folder or hide (`..`, separators, leading dot, NUL).
 */
export function assertKeyName(kind: 'wallet' | 'hotkey', name: string): void {
  const bad = name.length === 0 || name.length > 128 || name.startsWith('.') || /[/\\\0]/.test(name) || name.endsWith('pub.txt');
  if (bad) throw new AppFailure('bad-request', `"${name}" is not a usable ${kind} name: use letters, digits, - or _ (no slashes, no leading dot).`);
}

export interface KeyPaths {
  walletDir: string;
  coldkey: string;
  coldkeypub: string;
  hotkeysDir: string;
  hotkey: (name: string) => string;
  hotkeypub: (name: string) => string;
}

/** The btwallet layout (wallet.rs): coldkey, coldkeypub.txt, hotkeys/<h>, hotkeys/<h>pub.txt. */
export function keyPaths(walletPath: string, wallet: string): KeyPaths {
  assertKeyName('wallet', wallet);
  const walletDir = join(walletPath, wallet);
  const hotkeysDir = join(walletDir, 'hotkeys');
  return {
    walletDir,
    coldkey: join(walletDir, 'coldkey'),
    coldkeypub: join(walletDir, 'coldkeypub.txt'),
    hotkeysDir,
    hotkey: (name) => {
      assertKeyName('hotkey', name);
      return join(hotkeysDir, name);
    },
    hotkeypub: (name) => {
      assertKeyName('hotkey', name);
      return join(hotkeysDir, `${name}pub.txt`);
    },
  };
}
