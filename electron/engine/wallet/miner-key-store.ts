// The miner key (issued at provider.engy.ai, bound to the registered hotkey). It lives in the engine
// only: the UI sees `status()` (masked), the miner leg calls `get()`. Storage, in order of precedence:
// ENGY_MINER_KEY_FILE (headless operators), the OS keyring via Electron safeStorage, else a 0600 file.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AppFailure } from '../../../shared/errors.ts';
import type { MinerKeyStatus } from '../../../shared/wallet.ts';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import { Emitter } from '../lib/emitter.ts';
import { silentLogger, type Logger, type SecretRedactor } from '../lib/logger.ts';
import { PROVIDER_HOST } from '../../../shared/network.ts';

/** Implemented by the Electron main process over `safeStorage`; the engine never imports electron. */
export interface SecretBox {
  isAvailable(): boolean;
  encrypt(plain: string): Buffer;
  decrypt(data: Buffer): string;
}

export interface MinerKeyStoreOptions {
  /** `dataPaths(root).secrets`. */
  secretsDir: string;
  secretBox?: SecretBox | null;
  env?: NodeJS.ProcessEnv;
  redactor?: SecretRedactor;
  logger?: Logger;
}

export const MINER_KEY_ENV = 'ENGY_MINER_KEY_FILE';
const SEALED_FILE = 'miner-key.sealed';
const PLAIN_FILE = 'miner-key.txt';

export const PLAIN_FILE_WARNING = 'The OS keyring is not available, so the miner key is kept in a plain file that only your user can read (mode 0600): anyone who can log in as you can read it.';

/** `ek_live_abcdef123f9a` -> `ek_…3f9a`: enough to recognise which key it is, useless to anyone else. */
export function maskMinerKey(key: string): string {
  if (key.length < 12) return '…';
  const us = key.indexOf('_');
  const prefix = us > 0 && us <= 4 ? key.slice(0, us + 1) : key.slice(0, 2);
  return `${prefix}…${key.slice(-4)}`;
}

export function normaliseMinerKey(input: string): string {
  const key = input.trim();
  if (key.length < 12 || key.length > 512 || !/^[\x21-\x7e]+$/.test(key))
    throw new AppFailure('bad-request', `That does not look like a miner key: paste the whole key from ${PROVIDER_HOST} (no spaces).`);
  return key;
}

export class MinerKeyStore {
  private readonly secretsDir: string;
  private readonly box: SecretBox | null;
  private readonly env: NodeJS.ProcessEnv;
  private readonly redactor: SecretRedactor | undefined;
  private readonly log: Logger;
  private cached: string | null | undefined;
  private readonly changed = new Emitter<MinerKeyStatus>();
  readonly onDidChange = this.changed.event;

  constructor(opts: MinerKeyStoreOptions) {
    this.secretsDir = opts.secretsDir;
    this.box = opts.secretBox ?? null;
    this.env = opts.env ?? process.env;
    this.redactor = opts.redactor;
    this.log = opts.logger ?? silentLogger;
  }

  private get envFile(): string | undefined {
    const v = this.env[MINER_KEY_ENV];
    return v && v.length > 0 ? v : undefined;
  }

  private boxAvailable(): boolean {
    try {
      return this.box?.isAvailable() ?? false;
    } catch {
      return false;
    }
  }

  private load(): { key: string | null; problem?: string } {
    const envFile = this.envFile;
    if (envFile) {
      try {
        return { key: normaliseMinerKey(readFileSync(envFile, 'utf8')) };
      } catch (e) {
        const why = e instanceof AppFailure ? 'does not hold a miner key' : 'cannot be read';
        return { key: null, problem: `${MINER_KEY_ENV} names ${envFile}, which ${why}: fix the file or unset the variable.` };
      }
    }
    const sealed = join(this.secretsDir, SEALED_FILE);
    if (existsSync(sealed) && this.boxAvailable()) {
      try {
        return { key: normaliseMinerKey(this.box!.decrypt(readFileSync(sealed))) };
      } catch {
        return { key: null, problem: 'The stored miner key can no longer be decrypted by the OS keyring: enter it again.' };
      }
    }
    const plain = join(this.secretsDir, PLAIN_FILE);
    if (existsSync(plain)) {
      try {
        return { key: normaliseMinerKey(readFileSync(plain, 'utf8')) };
      } catch {
        return { key: null, problem: 'The stored miner key file is damaged: enter the key again.' };
      }
    }
    return { key: null };
  }

  private current(): { key: string | null; problem?: string } {
    if (this.cached !== undefined) return { key: this.cached };
    const r = this.load();
    if (r.key) this.redactor?.register(r.key);
    // Problems are not cached, so fixing the file is picked up without a restart.
    if (!r.problem) this.cached = r.key;
    return r;
  }

  status(): MinerKeyStatus {
    const { key, problem } = this.current();
    const storage = this.envFile ? 'env-file' : this.storageForWrite();
    const out: MinerKeyStatus = { present: key !== null, masked: key ? maskMinerKey(key) : null, storage };
    if (problem) out.warning = problem;
    else if (storage === 'file') out.warning = PLAIN_FILE_WARNING;
    else if (storage === 'env-file' && this.envFile && key) {
      const mode = statSync(this.envFile, { throwIfNoEntry: false })?.mode ?? 0;
      if ((mode & 0o077) !== 0) out.warning = `${this.envFile} can be read by other users: run \`chmod 600 ${this.envFile}\`.`;
    }
    return out;
  }

  /** Engine-only. Throws miner-key-missing with what to do. */
  get(): string {
    const { key, problem } = this.current();
    if (!key) throw new AppFailure('miner-key-missing', problem ?? `No miner key yet: get one at ${PROVIDER_HOST} for your registered hotkey and enter it in Settings.`);
    return key;
  }

  /** Stores (or replaces) the key. */
  set(input: string): MinerKeyStatus {
    if (this.envFile) throw new AppFailure('conflict', `The miner key is read from ${MINER_KEY_ENV} (${this.envFile}): edit that file, or unset the variable to store the key here.`);
    const key = normaliseMinerKey(input);
    this.redactor?.register(key);
    mkdirSync(this.secretsDir, { recursive: true, mode: 0o700 });
    chmodSync(this.secretsDir, 0o700);
    if (this.boxAvailable()) {
      writeFileAtomic(join(this.secretsDir, SEALED_FILE), this.box!.encrypt(key), 0o600);
      rmSync(join(this.secretsDir, PLAIN_FILE), { force: true });
    } else {
      writeFileAtomic(join(this.secretsDir, PLAIN_FILE), key + '\n', 0o600);
      this.log.warn(PLAIN_FILE_WARNING);
    }
    // A replaced key stays registered with the redactor: it is still a secret somebody may hold.
    this.cached = key;
    const s = this.status();
    this.log.info(`miner key stored (${s.masked}, ${s.storage})`);
    this.changed.fire(s);
    return s;
  }

  clear(): MinerKeyStatus {
    rmSync(join(this.secretsDir, SEALED_FILE), { force: true });
    rmSync(join(this.secretsDir, PLAIN_FILE), { force: true });
    // The old value stays registered with the redactor: it may still sit in a log line's future context.
    this.cached = undefined;
    const s = this.status();
    this.log.info('miner key removed');
    this.changed.fire(s);
    return s;
  }

  private storageForWrite(): 'os-keyring' | 'file' {
    return this.boxAvailable() ? 'os-keyring' : 'file';
  }
}
