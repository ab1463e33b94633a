// The live GPU sampler against the fake nvidia-smi (a real process): a current driver answering the
// throttle reasons under their post-535 name, an old one that refuses it, read under the old name.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { GpuSampler } from '../../../electron/engine/serve/gpu-sampler.ts';
import { FAKE_NVIDIA_SMI_DIR, fakeSmiExec } from '../../helpers/fake-nvidia-smi.ts';

const BIN = join(FAKE_NVIDIA_SMI_DIR, 'nvidia-smi');

describe('live GPU sampling through the fake nvidia-smi', () => {
  it('reads fan, clocks and a power-cap throttle on a current driver', { timeout: 30_000 }, async () => {
    const sampler = new GpuSampler({ exec: fakeSmiExec('2x4090-live'), bin: BIN });
    await sampler.sample();
    expect(sampler.lastError).toBeNull();
    const [a, b] = sampler.snapshot().map((g) => g.points.at(-1)!);
    expect(a).toMatchObject({ throttle: [], memClockMHz: 10501, powerLimitW: 450 });
    expect(a!.fanPct).toBeGreaterThanOrEqual(30);
    expect(a!.smClockMHz).toBeGreaterThanOrEqual(2200);
    // The second card is power capped 3 s out of every 6: either state is a decoded list, never null.
    expect(String(b!.throttle?.join(','))).toMatch(/^(|sw-power-cap)$/);
  });

  it('falls back to clocks_throttle_reasons on a driver that refuses the new name', { timeout: 30_000 }, async () => {
    const sampler = new GpuSampler({ exec: fakeSmiExec('1x3090-old-reasons'), bin: BIN });
    await sampler.sample();
    expect(sampler.lastError).toBeNull();
    expect(sampler.snapshot()[0]!.points.at(-1)).toMatchObject({ powerDrawW: 340, powerLimitW: 350, throttle: ['sw-thermal', 'hw-thermal'], fanPct: 30 });
  });
});
