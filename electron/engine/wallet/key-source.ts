// Where a new sr25519 key comes from (fresh words, the user's words, or a 0x seed), shared by the
// hotkey and the coldkey so both derive exactly as btwallet does (CHAIN.md 1.4).
import { polkadot } from '../lib/polkadot.ts';
import { AppFailure } from '../../../shared/errors.ts';

const { hexToU8a, isHex } = polkadot('@polkadot/util');
const { mnemonicGenerate, mnemonicToMiniSecret, mnemonicValidate, sr25519PairFromSeed } = polkadot('@polkadot/util-crypto');

export type KeySource =
  | { kind: 'generate'; words?: 12 | 15 | 18 | 21 | 24 }
  | { kind: 'mnemonic'; mnemonic: string }
  /** 32-byte mini-secret as 0x-hex (btcli `regen_* --seed`). */
  | { kind: 'seed'; seed: string };

export interface DerivedKey {
  publicKey: Uint8Array;
  secretKey: Uint8Array;
  seed: Uint8Array;
  mnemonic?: string;
}

function normaliseMnemonic(m: string): string {
  return m.trim().toLowerCase().split(/\s+/).join(' ');
}

/** A user's secret text: a 0x seed when it looks like one, else a mnemonic. */
export function sourceFromSecret(secret: string): KeySource {
  const text = secret.trim();
  return /^(0x)?[0-9a-fA-F]{64}$/.test(text) ? { kind: 'seed', seed: text } : { kind: 'mnemonic', mnemonic: text };
}

/** Call after cryptoWaitReady(). Throws AppFailure('bad-request') with a sentence for bad words or seeds. */
export function deriveKey(source: KeySource): DerivedKey {
  let mnemonic: string | undefined;
  let seed: Uint8Array;
  switch (source.kind) {
    case 'generate':
      mnemonic = mnemonicGenerate(source.words ?? 12);
      seed = mnemonicToMiniSecret(mnemonic);
      break;
    case 'mnemonic':
      mnemonic = normaliseMnemonic(source.mnemonic);
      if (!mnemonicValidate(mnemonic)) throw new AppFailure('bad-request', 'That is not a valid BIP39 mnemonic: check the words and their order (12 or 24 words).');
      seed = mnemonicToMiniSecret(mnemonic);
      break;
    case 'seed': {
      const s = source.seed.trim();
      const hex = s.startsWith('0x') ? s : `0x${s}`;
      if (!isHex(hex, 256)) throw new AppFailure('bad-request', 'The seed must be 32 bytes of hex (64 hex digits, optionally starting with 0x).');
      seed = hexToU8a(hex);
      break;
    }
    default: {
      const never: never = source;
      throw new Error(`unknown key source ${JSON.stringify(never)}`);
    }
  }
  const pair = sr25519PairFromSeed(seed);
  return { publicKey: pair.publicKey, secretKey: pair.secretKey, seed, ...(mnemonic ? { mnemonic } : {}) };
}
