// The chain's own block time, read once per contact by the validator's cadence and by earnings (per-tempo
// emission into a rate): one reading rule for both, so a fast local chain is never taken for finney.
import { errorMessage } from '../../../shared/errors.ts';

/** What a chain client offers for it (ports.ts ChainPort.blockTimeMs; absent on doubles that do not measure). */
export interface BlockTimeSource {
  blockTimeMs?(): Promise<number | null>;
}

/** Milliseconds per block measured from the chain's timestamps, or why not (absent, null, nonsense, or an error). */
export async function readBlockTimeMs(chain: BlockTimeSource): Promise<{ ms: number } | { ms: null; error: string | null }> {
  try {
    const ms = chain.blockTimeMs ? await chain.blockTimeMs() : null;
    return ms !== null && Number.isFinite(ms) && ms > 0 ? { ms } : { ms: null, error: null };
  } catch (e) {
    return { ms: null, error: errorMessage(e) };
  }
}
