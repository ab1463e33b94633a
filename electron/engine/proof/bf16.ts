// float32 -> bfloat16 exactly as the reference miner converts its rows:
// torch.from_numpy(np.asarray(row, dtype=np.float32)).to(torch.bfloat16) on a contiguous CPU tensor.
// That is torch's vectorised path: round to nearest, ties to even, on the upper 16 bits; subnormals
// kept; overflow to infinity; every NaN becomes 0xFFFF (the scalar path would give 0x7FC0: not ours).

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** The bf16 bit pattern the miner's conversion gives for a float32 bit pattern. */
export function f32BitsToBf16(u: number): number {
  u >>>= 0;
  // NaN: exponent all ones and a non-zero mantissa, whatever the sign.
  if ((u & 0x7fffffff) > 0x7f800000) return 0xffff;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/** float32 bit pattern of a JS number after rounding it to float32 (nearest even, overflow to infinity). */
export function float64ToF32Bits(x: number): number {
  F32[0] = x;
  return U32[0]!;
}

/**
 * A float64 (for example a parsed JSON number) to bf16 bits the way the reference does it: first to
 * float32, then to bf16. The two roundings are deliberate: rounding straight to bf16 differs when the
 * float32 lands exactly on a bf16 midpoint.
 */
export function float64ToBf16(x: number): number {
  F32[0] = x;
  return f32BitsToBf16(U32[0]!);
}

/** Converts a whole float32 buffer (one row or many, row-major) to bf16 bit patterns. */
export function float32ArrayToBf16(src: Float32Array, out: Uint16Array = new Uint16Array(src.length)): Uint16Array {
  const bits = new Uint32Array(src.buffer, src.byteOffset, src.length);
  for (let i = 0; i < bits.length; i++) {
    const u = bits[i]!;
    out[i] = (u & 0x7fffffff) > 0x7f800000 ? 0xffff : ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
  }
  return out;
}

/** The float value of a bf16 bit pattern (exact: bf16 is the upper half of a float32). */
export function bf16ToFloat(bits: number): number {
  U32[0] = (bits & 0xffff) << 16;
  return F32[0]!;
}
