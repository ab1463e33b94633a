// The coldkey: its address from coldkeypub.txt (no password), and its secret only for the length
// of one operation (a registration), decrypted off the main thread and locked right after.
import { existsSync, readFileSync } from 'node:fs';
import { AppFailure } from '../../../shared/errors.ts';
import type { KeyfileEncryption } from '../../../shared/wallet.ts';
import type { SecretRedactor } from '../lib/logger.ts';
import { signerFromSecret, type EngineKeySigner } from './engine-signer.ts';
import { detectEncryption, keyfileAddress, parseKeyfile } from './keyfile-format.ts';
import { keypairFromKeyfile, keyfileSecrets } from './keypair-from-keyfile.ts';
import type { KdfLimits } from './nacl-keyfile.ts';
import { readKeyfile } from './read-keyfile.ts';
import { keyPaths, resolveWalletPath } from './wallet-location.ts';

export interface ColdkeyRef {
  walletPath?: string;
  wallet: string;
  env?: NodeJS.ProcessEnv;
}

export interface ColdkeyInfo {
  address: string | null;
  encryption: KeyfileEncryption;
}

/** Address from coldkeypub.txt (never encrypted), falling back to a plaintext coldkey's own address. */
export function readColdkeyInfo(ref: ColdkeyRef): ColdkeyInfo {
  const paths = keyPaths(resolveWalletPath(ref.walletPath, ref.env ?? process.env), ref.wallet);
  let encryption: KeyfileEncryption = 'missing';
  let coldkeyBytes: Uint8Array | null = null;
  if (existsSync(paths.coldkey)) {
    coldkeyBytes = readFileSync(paths.coldkey);
    encryption = detectEncryption(coldkeyBytes);
  }
  let address: string | null = null;
  if (existsSync(paths.coldkeypub)) {
    try {
      address = keyfileAddress(parseKeyfile(readFileSync(paths.coldkeypub)));
    } catch {
      address = null;
    }
  }
  if (address === null && coldkeyBytes && encryption === 'none') {
    try {
      address = keyfileAddress(parseKeyfile(coldkeyBytes));
    } catch {
      address = null;
    }
  }
  return { address, encryption };
}

export interface UnlockColdkeyOptions extends ColdkeyRef {
  /** Never stored, never logged; dropped once the KDF worker has it. */
  password?: string;
  redactor?: SecretRedactor;
  /** Tests only. */
  kdf?: KdfLimits;
}

/** Decrypts the coldkey (Argon2i in a worker, ~7-10 s) and returns a signer the caller must lock. Prefer withColdkeySigner. */
export async function unlockColdkey(opts: UnlockColdkeyOptions): Promise<EngineKeySigner> {
  const env = opts.env ?? process.env;
  const paths = keyPaths(resolveWalletPath(opts.walletPath, env), opts.wallet);
  const data = await readKeyfile(paths.coldkey, {
    role: 'coldkey',
    env,
    ...(opts.password !== undefined ? { password: opts.password } : {}),
    ...(opts.kdf ? { kdf: opts.kdf } : {}),
  });
  for (const s of keyfileSecrets(data)) opts.redactor?.register(s);
  let kp;
  try {
    kp = keypairFromKeyfile(data);
  } catch (e) {
    throw new AppFailure('wallet-not-found', `The coldkey file is inconsistent (${(e as Error).message}): restore it with \`btcli w regen_coldkey\` and its mnemonic.`);
  }
  if (!kp) throw new AppFailure('wallet-not-found', 'The coldkey file holds only a public key: restore the coldkey with `btcli w regen_coldkey` to sign with it.');
  const signer = signerFromSecret(kp);
  const expected = readColdkeyInfo(opts).address;
  if (expected && expected !== signer.address) {
    signer.lock();
    throw new AppFailure('wallet-not-found', `The coldkey decrypts to ${signer.address}, not the ${expected} in coldkeypub.txt: fix the wallet with \`btcli w regen_coldkeypub\`.`);
  }
  return signer;
}

/** Unlocks the coldkey for exactly one operation; the secret is wiped when `fn` settles. */
export async function withColdkeySigner<T>(opts: UnlockColdkeyOptions, fn: (signer: EngineKeySigner) => Promise<T>): Promise<T> {
  const signer = await unlockColdkey(opts);
  try {
    return await fn(signer);
  } finally {
    signer.lock();
  }
}
