// Turns keyfile JSON into sr25519 key material in btwallet's read precedence
// (deserialize_keypair_from_keyfile_data): secretPhrase -> secretSeed -> privateKey -> public only.
import { polkadot } from '../lib/polkadot.ts';
import { btwalletPrivateToPolkadot, type KeyfileData } from './keyfile-format.ts';

const { hexToU8a, isHex, stringToU8a, u8aEq } = polkadot('@polkadot/util');
const { decodeAddress, keyExtractSuri, keyFromPath, mnemonicToMiniSecret, mnemonicValidate, sr25519PairFromSeed, sr25519Sign, sr25519Verify } = polkadot('@polkadot/util-crypto');

/** sp-core's default phrase for bare derivation URIs such as `//Alice` (substrate DEV_PHRASE). */
const DEV_PHRASE = 'bottom drive obey lake curtain smoke basket hold race lonely fit walk';

export type KeySource = 'secretPhrase' | 'secretSeed' | 'privateKey';

export interface SecretKeypair {
  publicKey: Uint8Array;
  secretKey: Uint8Array;
  source: KeySource;
}

/** A 12/24-word mnemonic, or an sp-core URI (`<phrase>//hard/soft`, `//Alice`) as btwallet create_from_uri accepts. */
export function keypairFromPhrase(phraseOrUri: string): { publicKey: Uint8Array; secretKey: Uint8Array } {
  const text = phraseOrUri.trim();
  if (mnemonicValidate(text)) return sr25519PairFromSeed(mnemonicToMiniSecret(text));
  const { phrase, path, password } = keyExtractSuri(text.startsWith('/') ? DEV_PHRASE + text : text);
  let base: { publicKey: Uint8Array; secretKey: Uint8Array };
  if (isHex(phrase, 256)) base = sr25519PairFromSeed(hexToU8a(phrase));
  else if (mnemonicValidate(phrase)) base = sr25519PairFromSeed(mnemonicToMiniSecret(phrase, password ?? ''));
  else throw new Error('the secret phrase is neither a BIP39 mnemonic nor a derivation URI');
  return keyFromPath(base, path, 'sr25519');
}

/**
 * btwallet writes secretSeed with from_utf8: if the 32 raw bytes happen to be valid UTF-8 they
 * appear raw after "0x" (CHAIN.md 1.2 quirk). Accept both forms.
 */
export function decodeSecretSeed(value: string): Uint8Array | null {
  if (isHex(value, 256)) return hexToU8a(value);
  if (value.startsWith('0x')) {
    const raw = stringToU8a(value.slice(2));
    if (raw.length === 32) return raw;
  }
  return null;
}

function expectedPublicKey(k: KeyfileData): Uint8Array | null {
  const hex = k.publicKey ?? k.accountId;
  if (hex && isHex(hex, 256)) return hexToU8a(hex);
  if (k.ss58Address) {
    try {
      return decodeAddress(k.ss58Address);
    } catch {
      return null;
    }
  }
  return null;
}

/** Sign-and-verify proves a secret belongs to a public key without re-deriving the point. */
function secretMatches(publicKey: Uint8Array, secretKey: Uint8Array): boolean {
  const probe = stringToU8a('engy-panel keyfile self-check');
  try {
    return sr25519Verify(probe, sr25519Sign(probe, { publicKey, secretKey }), publicKey);
  } catch {
    return false;
  }
}

/**
 * Returns the secret keypair, or null for a public-only keyfile. Throws when the secret does not
 * belong to the address the file claims: signing with it would silently act as another account.
 */
export function keypairFromKeyfile(k: KeyfileData): SecretKeypair | null {
  const expected = expectedPublicKey(k);
  const check = (pair: { publicKey: Uint8Array; secretKey: Uint8Array }, source: KeySource): SecretKeypair => {
    if (expected && !u8aEq(expected, pair.publicKey)) throw new Error(`the ${source} in the keyfile does not derive the address the file names`);
    return { ...pair, source };
  };
  if (k.secretPhrase) return check(keypairFromPhrase(k.secretPhrase), 'secretPhrase');
  if (k.secretSeed) {
    const seed = decodeSecretSeed(k.secretSeed);
    if (seed) return check(sr25519PairFromSeed(seed), 'secretSeed');
  }
  if (k.privateKey && isHex(k.privateKey, 512)) {
    if (!expected) throw new Error('the keyfile has a privateKey but no publicKey to check it against');
    const secretKey = btwalletPrivateToPolkadot(hexToU8a(k.privateKey));
    if (!secretMatches(expected, secretKey)) throw new Error('the privateKey in the keyfile does not match its publicKey');
    return { publicKey: expected, secretKey, source: 'privateKey' };
  }
  return null;
}

/** Every secret string the keyfile carries, so callers can register them with the log redactor. */
export function keyfileSecrets(k: KeyfileData): string[] {
  return [k.secretPhrase, k.secretSeed, k.privateKey, k.secretSeed?.replace(/^0x/, ''), k.privateKey?.replace(/^0x/, '')].filter((s): s is string => typeof s === 'string' && s.length > 0);
}
