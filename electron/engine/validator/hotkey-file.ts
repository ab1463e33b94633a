// Minimal btcli hotkey reader for the headless validator: ~/.bittensor/wallets/<wallet>/hotkeys/<hotkey>,
// unencrypted JSON. The sr25519 pair is built here and only a signer leaves: the secret is never
// returned, logged or put in a snapshot.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Keyring } from '@polkadot/keyring';
import type { KeySigner } from '../chain/ports.ts';

export function defaultWalletPath(env: NodeJS.ProcessEnv = process.env): string {
  const p = env.BT_WALLET_PATH;
  if (p && p.length > 0) return p.startsWith('~/') ? join(homedir(), p.slice(2)) : p;
  return join(homedir(), '.bittensor', 'wallets');
}

export type HotkeyLoad = { ok: true; signer: KeySigner } | { ok: false; message: string };

export function loadHotkeySigner(walletPath: string, wallet: string, hotkey: string): HotkeyLoad {
  if (!/^[^/\\]+$/.test(wallet) || !/^[^/\\]+$/.test(hotkey) || wallet === '..' || hotkey === '..') {
    return { ok: false, message: 'wallet and hotkey are names, not paths' };
  }
  const file = join(walletPath, wallet, 'hotkeys', hotkey);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { ok: false, message: `no hotkey file at ${file}: check --wallet, --hotkey and --wallet-path (btcli wallet list shows the names)` };
  }
  if (text.startsWith('$NACL') || text.startsWith('$ANSIBLE_VAULT') || text.startsWith('gAAAAA')) {
    return { ok: false, message: `the hotkey ${wallet}/${hotkey} is encrypted; the validator needs an unencrypted hotkey (as btcli creates by default)` };
  }
  let data: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
    data = parsed as Record<string, unknown>;
  } catch {
    return { ok: false, message: `the hotkey file ${file} is not a btcli keyfile (not JSON)` };
  }
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  // btwallet's read precedence: phrase, then seed. (privateKey alone is left to the wallet engine.)
  const sources = [data.secretPhrase, data.secretSeed].filter((s): s is string => typeof s === 'string' && s.length > 0);
  for (const src of sources) {
    try {
      const pair = keyring.addFromUri(src);
      if (typeof data.ss58Address === 'string' && data.ss58Address !== pair.address) continue;
      return { ok: true, signer: { address: pair.address, sign: (m) => pair.sign(m) } };
    } catch {
      // Try the next source; a bad phrase must not leak into an error message.
    }
  }
  return { ok: false, message: `the hotkey file ${file} holds no usable secretPhrase or secretSeed` };
}
