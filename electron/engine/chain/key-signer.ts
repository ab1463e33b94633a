// Bridges the engine's KeySigner (secret stays inside the engine) to @polkadot/api's Signer interface.
import type { KeyringPair } from '@polkadot/keyring/types';
import type { Signer, SignerResult } from '@polkadot/api/types';
import type { Registry, SignerPayloadJSON } from '@polkadot/types/types';
import { polkadot } from '../lib/polkadot.ts';
import type { KeySigner } from './ports.ts';

const { u8aConcat, u8aToHex } = polkadot('@polkadot/util');
const { blake2AsU8a } = polkadot('@polkadot/util-crypto');

/** MultiSignature variant index of Sr25519 (Ed25519 = 0, Sr25519 = 1, Ecdsa = 2). */
const SR25519_VARIANT = 1;

/** Substrate signs the payload itself when it is at most 256 bytes, its blake2-256 hash otherwise. */
export function signingMessage(payloadBytes: Uint8Array): Uint8Array {
  return payloadBytes.length > 256 ? blake2AsU8a(payloadBytes, 256) : payloadBytes;
}

/** A signer that only signs whole payloads (a browser extension): its `sign()` cannot produce extrinsic signatures. */
interface PayloadSigning {
  signPayload(payload: SignerPayloadJSON): Promise<SignerResult>;
}

function signsPayloads(key: KeySigner): key is KeySigner & PayloadSigning {
  return typeof (key as Partial<PayloadSigning>).signPayload === 'function';
}

/**
 * A @polkadot/api Signer over a KeySigner: rebuilds the SCALE payload (all transaction extensions) and signs it.
 * A KeySigner that brings its own `signPayload` (wallet/browser-signer.ts) is used as it is.
 */
export function apiSignerFor(registry: Registry, key: KeySigner): Signer {
  if (signsPayloads(key)) return { signPayload: (payload) => key.signPayload(payload) };
  let id = 0;
  return {
    signPayload(payload: SignerPayloadJSON): Promise<SignerResult> {
      if (payload.address !== key.address) {
        return Promise.reject(new Error(`signer for ${key.address} was asked to sign for ${payload.address}`));
      }
      const ext = registry.createType('ExtrinsicPayload', payload, { version: payload.version });
      const signature = key.sign(signingMessage(ext.toU8a({ method: true })));
      return Promise.resolve({ id: ++id, signature: u8aToHex(u8aConcat(new Uint8Array([SR25519_VARIANT]), signature)) });
    },
  };
}

/** A KeySigner over a keyring pair created inside the engine (e.g. from a decrypted wallet). */
export function keySignerFromPair(pair: KeyringPair): KeySigner {
  if (pair.type !== 'sr25519') throw new RangeError('Bittensor keys are sr25519: this key pair has another type.');
  return { address: pair.address, sign: (message) => pair.sign(message) };
}
