// Why a GPU's clocks are held down, one home for the engine (which decodes nvidia-smi's bitmask into
// these names) and the UI (which shows the words and marks the chart). Only the reasons that cost
// throughput are kept: idle, application clocks, sync boost and display clocks are normal operation.

export type ThrottleReason = 'sw-power-cap' | 'hw-slowdown' | 'sw-thermal' | 'hw-thermal' | 'hw-power-brake';

export const THROTTLE_REASONS: readonly ThrottleReason[] = ['sw-power-cap', 'hw-slowdown', 'sw-thermal', 'hw-thermal', 'hw-power-brake'];

/** NVML's clocks event reason bits (nvmlClocksEventReason*), as nvidia-smi prints them in hex. */
export const THROTTLE_BITS: Record<ThrottleReason, number> = {
  'sw-power-cap': 0x4,
  'hw-slowdown': 0x8,
  'sw-thermal': 0x20,
  'hw-thermal': 0x40,
  'hw-power-brake': 0x80,
};

/** The words on the card, in nvidia-smi's own terms so a user can look them up. */
export const THROTTLE_WORDS: Record<ThrottleReason, string> = {
  'sw-power-cap': 'power cap',
  'hw-slowdown': 'HW slowdown',
  'sw-thermal': 'thermal (SW slowdown)',
  'hw-thermal': 'thermal (HW slowdown)',
  'hw-power-brake': 'power brake (HW)',
};

/** What the chart marks: a power cap (the card sits at its limit) or a slowdown (heat or hardware protection). */
export type ThrottleKind = 'power' | 'slowdown';

export function throttleKind(r: ThrottleReason): ThrottleKind {
  return r === 'sw-power-cap' ? 'power' : 'slowdown';
}

/**
 * Decodes nvidia-smi's `clocks_event_reasons.active` ("0x0000000000000004"); null when the field is
 * missing, "[N/A]", "[Not Supported]" or not a hex mask at all (never a guess).
 */
export function decodeThrottleMask(raw: string | undefined): ThrottleReason[] | null {
  const t = raw?.trim() ?? '';
  const m = /^0x([0-9a-f]{1,16})$/i.exec(t);
  if (!m) return null;
  // Every bit named here lies in the low 32 bits: the high digits are dropped before Number parsing.
  const low = Number.parseInt(m[1]!.slice(-8), 16);
  return THROTTLE_REASONS.filter((r) => (low & THROTTLE_BITS[r]) !== 0);
}
