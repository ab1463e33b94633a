// Setup's hardware step is never green "done" while its own sentence says the disk cannot hold the checkpoint.
import { describe, expect, it } from 'vitest';
import { diskShort } from '../../../renderer/src/features/setup/hardware-words.ts';
import type { HardwareReport } from '../../../shared/hardware.ts';

const report = (over: Partial<HardwareReport>) => ({ verdict: 'ready', space: { ok: true }, ...over }) as unknown as HardwareReport;

describe('setup hardware step', () => {
  it('a disk too small for the checkpoint keeps the step open, unless the GPUs cannot mine anyway', () => {
    expect(diskShort(report({ space: { ok: false } as HardwareReport['space'] }))).toBe(true);
    expect(diskShort(report({}))).toBe(false);
    expect(diskShort(report({ space: null as unknown as HardwareReport['space'] }))).toBe(false);
    expect(diskShort(report({ verdict: 'unsupported', space: { ok: false } as HardwareReport['space'] }))).toBe(false);
  });
});
