// TEST DOUBLE: writes btcli-shaped wallets into a temp folder (what `btcli w create` leaves on disk),
// so wallet tests never touch ~/.bittensor. Not shipped.
import { mkdirSync, mkdtempSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import { AppFailure } from '../../shared/errors.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { polkadot } from '../../electron/engine/lib/polkadot.ts';
import { serializeKeyfile, serializePublicKeyfile } from '../../electron/engine/wallet/keyfile-format.ts';
import { naclSealOffThread } from '../../electron/engine/wallet/nacl-off-thread.ts';
import type { KdfLimits } from '../../electron/engine/wallet/nacl-keyfile.ts';
import { signerFromSecret } from '../../electron/engine/wallet/engine-signer.ts';

const { u8aToHex } = polkadot('@polkadot/util');
const { cryptoWaitReady, mnemonicToMiniSecret, sr25519PairFromSeed } = polkadot('@polkadot/util-crypto');

/** Low Argon2 limits for tests that exercise paths other than the real KDF (the format itself fixes 8 / 512 MiB). */
export const TEST_KDF: KdfLimits = { opslimit: 3, memlimit: 8 * 1024 * 1024 };

export const DEV_MNEMONIC_A = 'old leopard transfer rib spatial phone calm indicate online fire caution review';
export const DEV_MNEMONIC_B = 'bottom drive obey lake curtain smoke basket hold race lonely fit walk';

export function tempWalletPath(): string {
  return mkdtempSync(join(tmpdir(), 'engy-wallets-'));
}

function write(path: string, data: string | Uint8Array): void {
  writeFileSync(path, data, { mode: 0o600 });
  chmodSync(path, 0o600);
}

export function keyfileJson(mnemonic: string): { json: string; address: string; publicKey: string } {
  const seed = mnemonicToMiniSecret(mnemonic);
  const pair = sr25519PairFromSeed(seed);
  const address = signerFromSecret({ publicKey: pair.publicKey, secretKey: pair.secretKey.slice() }).address;
  return { json: serializeKeyfile({ publicKey: pair.publicKey, secretKey: pair.secretKey, mnemonic, seed }), address, publicKey: u8aToHex(pair.publicKey) };
}

export interface ColdkeyFixture {
  walletPath: string;
  wallet: string;
  mnemonic: string;
  /** Omit to write a plaintext coldkey. */
  password?: string;
  kdf?: KdfLimits;
  /** Write raw bytes as the coldkey instead (legacy formats). */
  rawColdkey?: string;
}

export async function writeColdkey(f: ColdkeyFixture): Promise<{ address: string }> {
  await cryptoWaitReady();
  const dir = join(f.walletPath, f.wallet);
  mkdirSync(dir, { recursive: true });
  const { json, address } = keyfileJson(f.mnemonic);
  const pair = sr25519PairFromSeed(mnemonicToMiniSecret(f.mnemonic));
  write(join(dir, 'coldkeypub.txt'), serializePublicKeyfile(pair.publicKey));
  if (f.rawColdkey !== undefined) write(join(dir, 'coldkey'), f.rawColdkey);
  else if (f.password === undefined) write(join(dir, 'coldkey'), json);
  else write(join(dir, 'coldkey'), await naclSealOffThread(new TextEncoder().encode(json), f.password, f.kdf ?? TEST_KDF));
  return { address };
}

/** An old-style hotkey: plaintext JSON, no `<name>pub.txt` (btwallet < 3.1). */
export async function writeLegacyHotkey(walletPath: string, wallet: string, hotkey: string, mnemonic: string): Promise<{ address: string }> {
  await cryptoWaitReady();
  const dir = join(walletPath, wallet, 'hotkeys');
  mkdirSync(dir, { recursive: true });
  const { json, address } = keyfileJson(mnemonic);
  write(join(dir, hotkey), json);
  return { address };
}

/** Temp wallet folders for one test file: `make()` in tests, `cleanup()` in afterEach. */
export function tempWalletDirs(): { make(): string; cleanup(): void } {
  const dirs: string[] = [];
  return {
    make() {
      const d = tempWalletPath();
      dirs.push(d);
      return d;
    },
    cleanup() {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** Awaits a promise that must reject with an AppFailure, and returns it for assertions on code and sentence. */
export async function appFailure(p: Promise<unknown>): Promise<AppFailure> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppFailure) return e;
    throw e;
  }
  throw new Error('expected the call to fail with an AppFailure');
}
