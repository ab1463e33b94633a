// Loads a btcli hotkey as a signer for the validator (weights) and miner engines.
import { AppFailure } from '../../../shared/errors.ts';
import type { SecretRedactor } from '../lib/logger.ts';
import { signerFromSecret, type EngineKeySigner } from './engine-signer.ts';
import { keypairFromKeyfile, keyfileSecrets } from './keypair-from-keyfile.ts';
import { readKeyfile } from './read-keyfile.ts';
import { keyPaths, resolveWalletPath } from './wallet-location.ts';
import type { KdfLimits } from './nacl-keyfile.ts';

export interface LoadHotkeyOptions {
  /** Folder holding the wallets; default BT_WALLET_PATH or ~/.bittensor/wallets. */
  walletPath?: string;
  wallet: string;
  hotkey: string;
  /** Only for hotkeys created with `--use-password`; engy wants unencrypted hotkeys. */
  password?: string;
  env?: NodeJS.ProcessEnv;
  /** The LogHub's redactor: every secret read is registered so no log line can carry it. */
  redactor?: SecretRedactor;
  /** Tests only. */
  kdf?: KdfLimits;
}

export async function loadHotkeySigner(opts: LoadHotkeyOptions): Promise<EngineKeySigner> {
  const env = opts.env ?? process.env;
  const paths = keyPaths(resolveWalletPath(opts.walletPath, env), opts.wallet);
  const file = paths.hotkey(opts.hotkey);
  const data = await readKeyfile(file, { role: 'hotkey', env, ...(opts.password !== undefined ? { password: opts.password } : {}), ...(opts.kdf ? { kdf: opts.kdf } : {}) });
  for (const s of keyfileSecrets(data)) opts.redactor?.register(s);
  let kp;
  try {
    kp = keypairFromKeyfile(data);
  } catch (e) {
    throw new AppFailure('wallet-not-found', `The hotkey file ${file} is inconsistent (${(e as Error).message}): restore it with \`btcli w regen_hotkey\` and its mnemonic.`);
  }
  if (!kp) throw new AppFailure('wallet-not-found', `The hotkey file ${file} holds only a public key: import the hotkey's mnemonic or seed to sign with it.`);
  return signerFromSecret(kp);
}
