import type { HardwareReport } from '../../../../shared/hardware.ts';

/** The GPUs could mine but the checkpoint's disk is too small: the hardware step stays open. */
export function diskShort(hw: HardwareReport): boolean {
  return Boolean(hw.space && !hw.space.ok && hw.verdict !== 'unsupported');
}
