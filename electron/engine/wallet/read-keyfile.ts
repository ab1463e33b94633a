// Reads one keyfile to plaintext JSON: refuses legacy envelopes with the btcli command that fixes
// them, and opens $NACL off the main thread with a password from the caller or btwallet's env var.
import { readFile } from 'node:fs/promises';
import { AppFailure } from '../../../shared/errors.ts';
import { detectEncryption, parseKeyfile, type KeyfileData } from './keyfile-format.ts';
import { naclOpenOffThread } from './nacl-off-thread.ts';
import type { KdfLimits } from './nacl-keyfile.ts';

export interface ReadKeyfileOptions {
  /** Which key this is, for the sentences and the btcli command that regenerates it. */
  role: 'coldkey' | 'hotkey';
  password?: string;
  env?: NodeJS.ProcessEnv;
  /** Only for tests of the wrong-password path; real files always use BTWALLET_KDF. */
  kdf?: KdfLimits;
}

/** btwallet get_password_from_environment: BT_PW_ + the absolute path with / and . turned into _, upper-cased. */
export function passwordEnvName(absolutePath: string): string {
  return `BT_PW_${absolutePath.replace(/[/.]/g, '_').toUpperCase()}`;
}

/** The value is base64(password XOR the variable's name, cyclic): obfuscation, not protection. */
export function passwordFromEnv(absolutePath: string, env: NodeJS.ProcessEnv): string | undefined {
  const name = passwordEnvName(absolutePath);
  const value = env[name];
  if (!value) return undefined;
  const bytes = Buffer.from(value, 'base64');
  const key = Buffer.from(name, 'utf8');
  for (let i = 0; i < bytes.length; i++) bytes[i] = bytes[i]! ^ key[i % key.length]!;
  return bytes.toString('utf8');
}

export function encodePasswordForEnv(absolutePath: string, password: string): string {
  const key = Buffer.from(passwordEnvName(absolutePath), 'utf8');
  const bytes = Buffer.from(password, 'utf8');
  for (let i = 0; i < bytes.length; i++) bytes[i] = bytes[i]! ^ key[i % key.length]!;
  return bytes.toString('base64');
}

export async function readKeyfileBytes(path: string, role: 'coldkey' | 'hotkey'): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new AppFailure('wallet-not-found', `No ${role} file at ${path}: check the wallet folder and the wallet and hotkey names.`);
    throw new AppFailure('wallet-not-found', `The ${role} file ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}): check its permissions.`);
  }
}

function regenCommand(role: 'coldkey' | 'hotkey'): string {
  return role === 'coldkey' ? 'btcli w regen_coldkey' : 'btcli w regen_hotkey';
}

export async function readKeyfile(path: string, opts: ReadKeyfileOptions): Promise<KeyfileData> {
  const data = await readKeyfileBytes(path, opts.role);
  const kind = detectEncryption(data);
  switch (kind) {
    case 'none':
      try {
        return parseKeyfile(data);
      } catch {
        throw new AppFailure('wallet-not-found', `The ${opts.role} file ${path} is not valid keyfile JSON: restore it with \`${regenCommand(opts.role)}\` and your mnemonic.`);
      }
    case 'ansible-vault':
    case 'fernet':
      throw new AppFailure(
        'wallet-legacy-format',
        `The ${opts.role} at ${path} uses the old ${kind === 'fernet' ? 'Fernet' : 'Ansible Vault'} encryption that current btcli cannot open either: re-import it from your mnemonic with \`${regenCommand(opts.role)}\`, then try again.`,
      );
    case 'unreadable':
      throw new AppFailure('wallet-not-found', `The ${opts.role} file ${path} is not a bittensor keyfile: restore it with \`${regenCommand(opts.role)}\`.`);
    case 'nacl': {
      const password = opts.password ?? passwordFromEnv(path, opts.env ?? process.env);
      if (password === undefined || password.length === 0) throw new AppFailure('wallet-locked', `The ${opts.role} is encrypted: enter its password to unlock it for this operation.`);
      const r = await naclOpenOffThread(data, password, opts.kdf);
      if (!r.ok) {
        if (r.badPassword) throw new AppFailure('wallet-bad-password', `That password does not open the ${opts.role}: check it and try again (it is the one you chose in btcli).`);
        throw new AppFailure('internal', `The ${opts.role} could not be decrypted: ${r.message}.`);
      }
      try {
        return parseKeyfile(r.data);
      } finally {
        r.data.fill(0);
      }
    }
    default: {
      const never: never = kind;
      throw new Error(`unknown keyfile kind ${String(never)}`);
    }
  }
}
