// Creates a btcli coldkey from the panel: the keyfile JSON sealed in the `$NACL` envelope btcli
// writes (Argon2i off the main thread), `coldkeypub.txt` beside it; or only `coldkeypub.txt` for a
// coldkey that lives in a browser wallet. Never replaces a file that is already there.
import { existsSync } from 'node:fs';
import { polkadot } from '../lib/polkadot.ts';
import { AppFailure } from '../../../shared/errors.ts';
import type { SecretRedactor } from '../lib/logger.ts';
import { deriveKey, type KeySource } from './key-source.ts';
import { parseKeyfile, serializeKeyfile, serializePublicKeyfile } from './keyfile-format.ts';
import { keyfileSecrets } from './keypair-from-keyfile.ts';
import { writeKeyFileExclusive } from './key-file-write.ts';
import type { KdfLimits } from './nacl-keyfile.ts';
import { naclSealOffThread } from './nacl-off-thread.ts';
import { keyPaths, resolveWalletPath, type KeyPaths } from './wallet-location.ts';

const { cryptoWaitReady, decodeAddress, encodeAddress } = polkadot('@polkadot/util-crypto');

/** btcli refuses shorter passwords too; a coldkey guards money. */
export const MIN_COLDKEY_PASSWORD = 8;

export interface ColdkeyTarget {
  walletPath?: string;
  wallet: string;
  env?: NodeJS.ProcessEnv;
}

export interface CreateColdkeyOptions extends ColdkeyTarget {
  source: KeySource;
  /** Encrypts the file; never stored, never logged. */
  password: string;
  redactor?: SecretRedactor;
  /** Tests only: the real files always use btwallet's limits. */
  kdf?: KdfLimits;
}

export interface CreatedColdkey {
  ss58Address: string;
  /** Only for `generate`: shown once in the words dialog, then forgotten. */
  mnemonic?: string;
}

function pathsFor(t: ColdkeyTarget): KeyPaths {
  return keyPaths(resolveWalletPath(t.walletPath, t.env ?? process.env), t.wallet);
}

function refuseExisting(p: KeyPaths, wallet: string): void {
  if (existsSync(p.coldkey) || existsSync(p.coldkeypub))
    throw new AppFailure('wallet-exists', `Wallet "${wallet}" already has a coldkey: choose another wallet name (an existing coldkey is never overwritten).`);
}

export async function createColdkey(opts: CreateColdkeyOptions): Promise<CreatedColdkey> {
  opts.redactor?.register(opts.password);
  if (opts.password.length < MIN_COLDKEY_PASSWORD)
    throw new AppFailure('bad-request', `Choose a coldkey password of at least ${MIN_COLDKEY_PASSWORD} characters: it is all that protects the TAO on this key.`);
  const p = pathsFor(opts);
  refuseExisting(p, opts.wallet);
  await cryptoWaitReady();
  const key = deriveKey(opts.source);
  const json = serializeKeyfile({ publicKey: key.publicKey, secretKey: key.secretKey, seed: key.seed, ...(key.mnemonic ? { mnemonic: key.mnemonic } : {}) });
  key.secretKey.fill(0);
  for (const secret of keyfileSecrets(parseKeyfile(json))) opts.redactor?.register(secret);
  const sealed = await naclSealOffThread(new TextEncoder().encode(json), opts.password, opts.kdf);
  // The KDF took seconds: look again so a file that appeared meanwhile is still never replaced.
  refuseExisting(p, opts.wallet);
  if (!writeKeyFileExclusive(p.coldkey, sealed)) throw new AppFailure('wallet-exists', `A coldkey appeared in wallet "${opts.wallet}" meanwhile: nothing was changed.`);
  writeKeyFileExclusive(p.coldkeypub, serializePublicKeyfile(key.publicKey));
  const out: CreatedColdkey = { ss58Address: encodeAddress(key.publicKey, 42) };
  if (opts.source.kind === 'generate' && key.mnemonic) out.mnemonic = key.mnemonic;
  return out;
}

/** Decodes an SS58 address (any network prefix) to its 32-byte public key, or says what is wrong with it. */
export function publicKeyFromAddress(address: string): Uint8Array {
  const text = address.trim();
  if (!/^[1-9A-HJ-NP-Za-km-z]{40,60}$/.test(text))
    throw new AppFailure('bad-request', 'That is not an SS58 address: copy the coldkey address (it starts with 5 and has 48 characters) from your wallet extension.');
  try {
    const pk = decodeAddress(text);
    if (pk.length !== 32) throw new Error('not 32 bytes');
    return pk;
  } catch {
    throw new AppFailure('bad-request', 'That address fails its checksum: copy it again from your wallet extension instead of typing it.');
  }
}

/** For a coldkey held elsewhere (a browser wallet): only its public file, so the panel knows the address. */
export function writeColdkeyPub(opts: ColdkeyTarget & { address: string }): { ss58Address: string } {
  const pk = publicKeyFromAddress(opts.address);
  const p = pathsFor(opts);
  refuseExisting(p, opts.wallet);
  if (!writeKeyFileExclusive(p.coldkeypub, serializePublicKeyfile(pk))) throw new AppFailure('wallet-exists', `A coldkeypub.txt appeared in wallet "${opts.wallet}" meanwhile: nothing was changed.`);
  return { ss58Address: encodeAddress(pk, 42) };
}
