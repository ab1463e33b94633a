// The one signer type the wallet hands to other engine services: the KeySigner port, plus the
// keyring pair the @polkadot/api client needs for signAndSend. Never crosses the contract.
import { polkadot } from '../lib/polkadot.ts';
import type { KeyringPair } from '@polkadot/keyring/types';
import type { KeySigner } from '../chain/ports.ts';

const { Keyring } = polkadot('@polkadot/keyring');

export interface EngineKeySigner extends KeySigner {
  /** sr25519 pair for `tx.signAndSend(pair)`; engine-only, never serialized. */
  readonly pair: KeyringPair;
  readonly publicKey: Uint8Array;
  /** Wipes the secret; sign() throws afterwards. Coldkeys are locked right after their one operation. */
  lock(): void;
  readonly locked: boolean;
}

export function signerFromSecret(material: { publicKey: Uint8Array; secretKey: Uint8Array }): EngineKeySigner {
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  // The pair keeps a reference to the array it is given: hand it a private copy and wipe the caller's.
  const pair = keyring.addFromPair({ publicKey: material.publicKey, secretKey: material.secretKey.slice() });
  material.secretKey.fill(0);
  let locked = false;
  return {
    address: pair.address,
    publicKey: pair.publicKey,
    pair,
    sign(message: Uint8Array): Uint8Array {
      if (locked) throw new Error('this key was locked after use; unlock it again');
      return pair.sign(message);
    },
    lock() {
      locked = true;
      pair.lock();
    },
    get locked() {
      return locked;
    },
  };
}
