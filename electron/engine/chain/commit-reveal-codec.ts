// Small pure helpers of the commit-reveal path on the client side: reading Drand.BeaconConfig's JSON and refusing
// a malformed commit before it costs a submission.
import { MAX_COMMIT_BYTES } from './tlock/layout.ts';
import type { CommitRevealFacts, SubmitOutcome } from './ports.ts';

function hexBytes(v: unknown): Uint8Array | null {
  if (typeof v !== 'string' || !/^0x([0-9a-f]{2})*$/i.test(v)) return null;
  return new Uint8Array(Buffer.from(v.slice(2), 'hex'));
}

/** BeaconConfig as polkadot-js toJSON() gives it; null when unset or malformed (the caller falls back to quicknet). */
export function beaconOf(json: unknown): CommitRevealFacts['beacon'] {
  if (typeof json !== 'object' || json === null) return null;
  const o = json as Record<string, unknown>;
  const publicKey = hexBytes(o['publicKey']);
  const period = Number(o['period']);
  const genesis = Number(o['genesisTime']);
  if (!publicKey || publicKey.length !== 96 || !Number.isSafeInteger(period) || period <= 0 || !Number.isSafeInteger(genesis) || genesis <= 0) return null;
  return { publicKey, genesisS: genesis, periodS: period };
}

export function commitRevealRefusal(commit: Uint8Array, revealRound: number, version: number): SubmitOutcome | null {
  const bad = (message: string): SubmitOutcome => ({ ok: false, kind: 'refused', code: 'BadInput', message });
  if (!(commit instanceof Uint8Array) || commit.length === 0 || commit.length > MAX_COMMIT_BYTES) {
    return bad(`A commit is 1 to ${MAX_COMMIT_BYTES} bytes of timelocked weights. This is a bug: please report it.`);
  }
  if (!Number.isSafeInteger(revealRound) || revealRound < 1) return bad('The reveal round must be a positive whole number. This is a bug: please report it.');
  if (!Number.isInteger(version) || version < 0 || version > 0xffff) return bad('The commit-reveal version is a u16. This is a bug: please report it.');
  return null;
}
