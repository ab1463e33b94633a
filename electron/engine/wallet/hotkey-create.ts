// Creates or imports a hotkey into a btcli wallet: same JSON fields btwallet writes, 0600 files,
// the `<name>pub.txt` companion, never overwriting an existing key.
import { existsSync } from 'node:fs';
import { hexToU8a, isHex, u8aToHex } from '@polkadot/util';
import { cryptoWaitReady, mnemonicGenerate, mnemonicToMiniSecret, mnemonicValidate, sr25519PairFromSeed, encodeAddress } from '@polkadot/util-crypto';
import { AppFailure } from '../../../shared/errors.ts';
import type { SecretRedactor } from '../lib/logger.ts';
import { parseKeyfile, serializeKeyfile, serializePublicKeyfile } from './keyfile-format.ts';
import { keyfileSecrets } from './keypair-from-keyfile.ts';
import { writeKeyFileExclusive } from './key-file-write.ts';
import { keyPaths, resolveWalletPath } from './wallet-location.ts';

export type HotkeySource =
  | { kind: 'generate'; words?: 12 | 15 | 18 | 21 | 24 }
  | { kind: 'mnemonic'; mnemonic: string }
  /** 32-byte mini-secret as 0x-hex (btcli `regen_hotkey --seed`). */
  | { kind: 'seed'; seed: string };

export interface CreateHotkeyOptions {
  walletPath?: string;
  wallet: string;
  hotkey: string;
  source: HotkeySource;
  env?: NodeJS.ProcessEnv;
  redactor?: SecretRedactor;
}

export interface CreatedHotkey {
  wallet: string;
  hotkey: string;
  ss58Address: string;
  publicKey: string;
  /** Only for `generate`: shown to the user once, then forgotten. Never put it in a snapshot. */
  mnemonic?: string;
  files: { keyfile: string; publicFile: string };
}

function normaliseMnemonic(m: string): string {
  return m.trim().toLowerCase().split(/\s+/).join(' ');
}

export async function createHotkey(opts: CreateHotkeyOptions): Promise<CreatedHotkey> {
  await cryptoWaitReady();
  const env = opts.env ?? process.env;
  const paths = keyPaths(resolveWalletPath(opts.walletPath, env), opts.wallet);
  const keyfile = paths.hotkey(opts.hotkey);
  const publicFile = paths.hotkeypub(opts.hotkey);
  if (existsSync(keyfile) || existsSync(publicFile))
    throw new AppFailure('wallet-exists', `A hotkey named "${opts.hotkey}" already exists in wallet "${opts.wallet}": pick another name (existing keys are never overwritten).`);

  let mnemonic: string | undefined;
  let seed: Uint8Array;
  switch (opts.source.kind) {
    case 'generate':
      mnemonic = mnemonicGenerate(opts.source.words ?? 12);
      seed = mnemonicToMiniSecret(mnemonic);
      break;
    case 'mnemonic':
      mnemonic = normaliseMnemonic(opts.source.mnemonic);
      if (!mnemonicValidate(mnemonic)) throw new AppFailure('bad-request', 'That is not a valid BIP39 mnemonic: check the words and their order (12 or 24 words).');
      seed = mnemonicToMiniSecret(mnemonic);
      break;
    case 'seed': {
      const s = opts.source.seed.trim();
      const hex = s.startsWith('0x') ? s : `0x${s}`;
      if (!isHex(hex, 256)) throw new AppFailure('bad-request', 'The seed must be 32 bytes of hex (64 hex digits, optionally starting with 0x).');
      seed = hexToU8a(hex);
      break;
    }
    default: {
      const never: never = opts.source;
      throw new Error(`unknown hotkey source ${JSON.stringify(never)}`);
    }
  }
  const pair = sr25519PairFromSeed(seed);
  const json = serializeKeyfile({ publicKey: pair.publicKey, secretKey: pair.secretKey, seed, ...(mnemonic ? { mnemonic } : {}) });
  pair.secretKey.fill(0);
  for (const secret of keyfileSecrets(parseKeyfile(json))) opts.redactor?.register(secret);

  if (!writeKeyFileExclusive(keyfile, json))
    throw new AppFailure('wallet-exists', `A hotkey named "${opts.hotkey}" appeared in wallet "${opts.wallet}" meanwhile: pick another name.`);
  // The pub file is a convenience copy; if one appeared meanwhile it is left alone.
  writeKeyFileExclusive(publicFile, serializePublicKeyfile(pair.publicKey));

  const created: CreatedHotkey = {
    wallet: opts.wallet,
    hotkey: opts.hotkey,
    ss58Address: encodeAddress(pair.publicKey, 42),
    publicKey: u8aToHex(pair.publicKey),
    files: { keyfile, publicFile },
  };
  // Only a freshly generated phrase goes back (for the show-once step); an imported one the user already has.
  if (opts.source.kind === 'generate' && mnemonic) created.mnemonic = mnemonic;
  return created;
}
