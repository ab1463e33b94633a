// drand quicknet, the beacon subtensor's commit-reveal v4 is timelocked to (CHAIN.md 3.4, vectors/tlock/FORMAT.md 2):
// BLS12-381 "unchained, G1 signatures", one round every 3 s from genesis. Rounds are identities; the round's
// signature is the decryption key.
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes } from '@noble/hashes/utils.js';

export const QUICKNET = {
  chainHash: '52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971',
  genesisS: 1692803367,
  periodS: 3,
  /** G2, 96 bytes compressed; the same bytes as on-chain Drand.BeaconConfig.publicKey. */
  publicKeyHex:
    '83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a',
  /** Hash-to-G1 domain separation tag of the signatures (RFC 9380 SSWU, XMD SHA-256). */
  dst: 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_',
} as const;

export const QUICKNET_PUBLIC_KEY = hexToBytes(QUICKNET.publicKeyHex);

/** Largest round we accept: u64 on chain, but anything past 2^53 is centuries away and a bug. */
export const MAX_ROUND = Number.MAX_SAFE_INTEGER;

export function assertRound(round: number): void {
  if (!Number.isSafeInteger(round) || round < 1) throw new RangeError(`a drand round is a whole number from 1 up, got ${String(round)}`);
}

/** The identity message of a round: SHA-256 of the round as a u64 big-endian. */
export function roundIdentity(round: number): Uint8Array {
  assertRound(round);
  const be = new Uint8Array(8);
  new DataView(be.buffer).setBigUint64(0, BigInt(round), false);
  return sha256(be);
}

/** floor((t - genesis) / period), at least 1: the bittensor SDK's round for a target time (published by then). */
export function roundAt(unixS: number): number {
  return Math.max(1, Math.floor((unixS - QUICKNET.genesisS) / QUICKNET.periodS));
}

/** When a round's signature is published, in unix seconds (round 1 at genesis). */
export function roundTimeS(round: number): number {
  return QUICKNET.genesisS + (round - 1) * QUICKNET.periodS;
}
