// Creates or imports a hotkey into a btcli wallet: same JSON fields btwallet writes, 0600 files,
// the `<name>pub.txt` companion, never overwriting an existing key.
import { existsSync } from 'node:fs';
import { polkadot } from '../lib/polkadot.ts';
import { AppFailure } from '../../../shared/errors.ts';
import type { SecretRedactor } from '../lib/logger.ts';
import { parseKeyfile, serializeKeyfile, serializePublicKeyfile } from './keyfile-format.ts';
import { keyfileSecrets } from './keypair-from-keyfile.ts';
import { deriveKey, type KeySource } from './key-source.ts';
import { writeKeyFileExclusive } from './key-file-write.ts';
import { keyPaths, resolveWalletPath } from './wallet-location.ts';

const { u8aToHex } = polkadot('@polkadot/util');
const { cryptoWaitReady, encodeAddress } = polkadot('@polkadot/util-crypto');

export type HotkeySource = KeySource;

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

export async function createHotkey(opts: CreateHotkeyOptions): Promise<CreatedHotkey> {
  await cryptoWaitReady();
  const env = opts.env ?? process.env;
  const paths = keyPaths(resolveWalletPath(opts.walletPath, env), opts.wallet);
  const keyfile = paths.hotkey(opts.hotkey);
  const publicFile = paths.hotkeypub(opts.hotkey);
  if (existsSync(keyfile) || existsSync(publicFile))
    throw new AppFailure('wallet-exists', `A hotkey named "${opts.hotkey}" already exists in wallet "${opts.wallet}": pick another name (existing keys are never overwritten).`);

  const key = deriveKey(opts.source);
  const { mnemonic, seed } = key;
  const pair = { publicKey: key.publicKey, secretKey: key.secretKey };
  const json = serializeKeyfile({ publicKey: pair.publicKey, secretKey: pair.secretKey, seed, ...(mnemonic ? { mnemonic } : {}) });
  pair.secretKey.fill(0);
  for (const secret of keyfileSecrets(parseKeyfile(json))) opts.redactor?.register(secret);

  if (!writeKeyFileExclusive(keyfile, json)) throw new AppFailure('wallet-exists', `A hotkey named "${opts.hotkey}" appeared in wallet "${opts.wallet}" meanwhile: pick another name.`);
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
