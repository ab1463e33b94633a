// Protocol constants of the SN53 light validator (PROTOCOL 8). The network's facts (netuid, provider,
// master hotkey) live in shared/network.ts; the provider URL and the master hotkey are one pair: the
// master signs only for its own provider, so they are overridden together.

export const LATEST_EPOCH_PATH = '/api/subnet/v1/epoch/latest';
export const HEARTBEAT_PATH = '/api/subnet/v1/validator/heartbeat';

export const MAX_PAYLOAD_BYTES = 1024 * 1024;
export const U16_MAX = 65535;

/**
 * The plausible window for a signed epoch_index. The master's signature proves who sent it, not that
 * it is sane: one absurd index (2^53-1) once applied made every real epoch "older" for good. No
 * epoch is past 2^31-1 (hourly epochs would take 245,000 years), and none runs more than 10,000
 * past the last applied one (over a year of epochs even at one every hour).
 */
export const MAX_EPOCH_INDEX = 2 ** 31 - 1;
export const MAX_EPOCH_JUMP = 10_000;

export const DEFAULT_POLL_S = 300;
export const DEFAULT_RESUBMIT_BLOCKS = 120;
/** Nominal block time, only for the wall-clock fallback and for "in ~N min" estimates. */
export const BLOCK_S = 12;
/** Below this share of the interval a resubmission is clearly not due: no chain connection is opened. */
export const PREGATE_FRACTION = 0.8;
/**
 * Blocks kept above the chain's WeightsSetRateLimit: our anchor is the block read before submitting,
 * the chain's is the block of inclusion, always later. 120 on SN53 (limit 100) is the upstream choice.
 */
export const RATE_LIMIT_MARGIN_BLOCKS = 20;
export const MIN_STALL_S = 900;

export function stallLimitMs(pollMs: number): number {
  return Math.max(3 * pollMs, MIN_STALL_S * 1000);
}
