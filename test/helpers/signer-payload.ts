// A well-formed extrinsic payload (SignerPayloadJSON) for the browser-signing tests: a set_weights-shaped
// call at block 16 on a zero genesis, never meant to reach a chain; `address` is the key asked to sign.
import type { SignerPayloadJSON } from '@polkadot/types/types';

const ZERO_HASH = `0x${'00'.repeat(32)}` as const;

export const signerPayload = (address: string): SignerPayloadJSON => ({
  address,
  blockHash: ZERO_HASH,
  blockNumber: '0x00000010',
  era: '0x00',
  genesisHash: ZERO_HASH,
  method: '0x0786350000',
  nonce: '0x00000000',
  specVersion: '0x000001a8',
  tip: '0x00000000000000000000000000000000',
  transactionVersion: '0x00000001',
  signedExtensions: ['CheckNonce'],
  version: 4,
});
