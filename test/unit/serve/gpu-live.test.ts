// Issue 28 item 3: the live GPU panel's engine side. nvidia-smi's extra fields parsed from hostile output,
// the throttle bitmask decoded into words, and the sampler's pace: 1 Hz while a client holds a watch
// lease, the slow pace otherwise, on a clock the test moves (no sleeps).
import { describe, expect, it } from 'vitest';
import { decodeThrottleMask, THROTTLE_WORDS } from '../../../shared/gpu-throttle.ts';
import { liveQueryFields, parseGpuCsv, parseLiveGpuCsv } from '../../../electron/engine/hardware/nvidia-smi.ts';
import { GpuSampler } from '../../../electron/engine/serve/gpu-sampler.ts';
import { GpuWatch } from '../../../electron/engine/serve/gpu-watch.ts';
import type { ExecText } from '../../../electron/engine/lib/exec-text.ts';
import { ManualClock } from '../../doubles/manual-clock.ts';

const BASE = '0, NVIDIA GeForce RTX 4090, GPU-abc, 24564, 21800, 8.9, 575.57.08, 71, 431.20, 450.00, 98, 4, 16';

describe('live GPU fields from nvidia-smi', () => {
  it('reads fan, clocks and throttle reasons after the report fields', () => {
    const [g] = parseLiveGpuCsv(`${BASE}, 64, 2520, 10501, 0x0000000000000004\n`, 'clocks_event_reasons.active');
    expect(g).toMatchObject({
      index: 0,
      powerDrawW: 431.2,
      powerLimitW: 450,
      utilizationPct: 98,
      temperatureC: 71,
      memoryUsedMiB: 21800,
      fanPct: 64,
      smClockMHz: 2520,
      memClockMHz: 10501,
      throttle: ['sw-power-cap'],
    });
  });

  it('turns [N/A], [Not Supported], garbage and out-of-range readings into null, never a figure', () => {
    const rows = parseLiveGpuCsv(
      [`${BASE}, [N/A], [Not Supported], [Unknown Error], [N/A]`, `${BASE.replace(/^0/, '1')}, 250, -5, banana, 0xZZ`, `${BASE.replace(/^0/, '2')}, 50, 1e9, 9000, 4`].join('\n'),
      'clocks_event_reasons.active',
    );
    expect(rows.map((r) => [r.fanPct, r.smClockMHz, r.memClockMHz, r.throttle])).toEqual([
      [null, null, null, null],
      [null, null, null, null],
      [50, null, 9000, null],
    ]);
  });

  it('skips short, empty and index-less lines, and reads no reasons when the driver knows neither field name', () => {
    const csv = ['', 'garbage', `${BASE}, 40`, `x, y, z, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 40, 2000, 9000, 0x0`, `${BASE}, 40, 2000, 9000`].join('\r\n');
    const rows = parseLiveGpuCsv(csv, null);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ fanPct: 40, smClockMHz: 2000, memClockMHz: 9000, throttle: null });
    expect(liveQueryFields(null)).not.toContain('clocks_event_reasons.active');
    expect(liveQueryFields('clocks_throttle_reasons.active').at(-1)).toBe('clocks_throttle_reasons.active');
  });

  it('reads at most 64 cards from oversized output, and a name with __proto__ is only a name', () => {
    const line = (i: number) => `${i}, __proto__, GPU-${i}, 24564, 1, 8.9, 575, 40, 100, 450, 5, 4, 16, 30, 2000, 9000, 0x0`;
    const huge = Array.from({ length: 5_000 }, (_, i) => line(i)).join('\n');
    const rows = parseLiveGpuCsv(huge, 'clocks_event_reasons.active');
    expect(rows).toHaveLength(64);
    expect(rows[0]!.name).toBe('__proto__');
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(parseGpuCsv(`${'x'.repeat(2_000_000)}\n${BASE}`)).toEqual([]);
  });
});

describe('throttle reasons', () => {
  it('decodes the bits that cost throughput and ignores idle, application clocks, sync boost and display', () => {
    expect(decodeThrottleMask('0x0000000000000000')).toEqual([]);
    expect(decodeThrottleMask('0x0000000000000001')).toEqual([]);
    expect(decodeThrottleMask('0x0000000000000113')).toEqual([]);
    expect(decodeThrottleMask('0x00000000000000EC')).toEqual(['sw-power-cap', 'hw-slowdown', 'sw-thermal', 'hw-thermal', 'hw-power-brake']);
    expect(decodeThrottleMask('0xFFFFFFFF00000044')).toEqual(['sw-power-cap', 'hw-thermal']);
    expect(decodeThrottleMask(' 0x20 ')).toEqual(['sw-thermal']);
  });

  it('says null for anything that is not a hex mask', () => {
    for (const raw of [undefined, '', '[N/A]', '[Not Supported]', '4', '0x', '0x12345678901234567', 'Active', '-0x4']) expect(decodeThrottleMask(raw), String(raw)).toBeNull();
  });

  it('has words for every reason, in nvidia-smi terms', () => {
    expect(THROTTLE_WORDS['sw-power-cap']).toBe('power cap');
    expect(THROTTLE_WORDS['hw-slowdown']).toBe('HW slowdown');
  });
});

/** A stand-in nvidia-smi answering one card, recording when it was asked and with which fields. */
function recordingSmi(clock: ManualClock, opts: { legacy?: boolean } = {}) {
  const calls: Array<{ at: number; fields: string }> = [];
  const exec: ExecText = async (_file, args) => {
    const fields = args[0]!.slice('--query-gpu='.length);
    calls.push({ at: clock.now(), fields });
    if (opts.legacy && fields.includes('clocks_event_reasons.active')) {
      throw Object.assign(new Error('Command failed: nvidia-smi'), { stdout: 'Field "clocks_event_reasons.active" is not a valid field to query.\n' });
    }
    return `${BASE}, 64, 2520, 10501, 0x40\n`;
  };
  return { calls, exec };
}

describe('the sampler paces itself by who watches', () => {
  it('samples every 5 s unwatched, every second while a lease is held, and slows down once it lapses', async () => {
    const clock = new ManualClock(1_000_000);
    const watch = new GpuWatch(clock, 15_000);
    const smi = recordingSmi(clock);
    const sampler = new GpuSampler({ exec: smi.exec, clock, watch });
    try {
      sampler.start();
      await clock.advance(12_000);
      expect(smi.calls.map((c) => c.at - 1_000_000)).toEqual([0, 5_000, 10_000]);
      // A client opens the panel at +12 s: a sample at once, then one a second for the 15 s lease.
      smi.calls.length = 0;
      expect(watch.renew()).toBe(15_000);
      await clock.advance(25_000);
      const at = smi.calls.map((c) => c.at - 1_012_000);
      expect(at.slice(0, 16)).toEqual(Array.from({ length: 16 }, (_, i) => i * 1_000));
      // The lease ran out at +15 s: back to 5 s.
      expect(at.slice(16)).toEqual([20_000, 25_000]);
      expect(sampler.snapshot()[0]!.points.at(-1)).toMatchObject({ fanPct: 64, smClockMHz: 2520, memClockMHz: 10501, throttle: ['hw-thermal'], powerDrawW: 431.2 });
    } finally {
      sampler.stop();
    }
  });

  it('renewing before the lease lapses keeps 1 Hz without an extra sample', async () => {
    const clock = new ManualClock(0);
    const watch = new GpuWatch(clock, 15_000);
    const smi = recordingSmi(clock);
    const sampler = new GpuSampler({ exec: smi.exec, clock, watch });
    try {
      watch.renew();
      sampler.start();
      for (let i = 0; i < 6; i++) {
        await clock.advance(5_000);
        watch.renew();
      }
      const at = smi.calls.map((c) => c.at);
      expect(at).toEqual(Array.from({ length: 31 }, (_, i) => i * 1_000));
    } finally {
      sampler.stop();
    }
  });

  it('stopping ends the loop and forgets the watch: a later renewal samples nothing', async () => {
    const clock = new ManualClock(0);
    const watch = new GpuWatch(clock);
    const smi = recordingSmi(clock);
    const sampler = new GpuSampler({ exec: smi.exec, clock, watch });
    sampler.start();
    await clock.advance(1);
    sampler.stop();
    watch.renew();
    await clock.advance(60_000);
    expect(smi.calls).toHaveLength(1);
    expect(clock.pending()).toBe(0);
  });

  it('falls back to the pre-535 field name once, then asks with it only', async () => {
    const clock = new ManualClock(0);
    const smi = recordingSmi(clock, { legacy: true });
    const sampler = new GpuSampler({ exec: smi.exec, clock });
    try {
      sampler.start();
      await clock.advance(5_000);
      expect(smi.calls.map((c) => c.fields.split(',').at(-1))).toEqual(['clocks_event_reasons.active', 'clocks_throttle_reasons.active', 'clocks_throttle_reasons.active']);
      expect(sampler.lastError).toBeNull();
      expect(sampler.snapshot()[0]!.points.at(-1)!.throttle).toEqual(['hw-thermal']);
    } finally {
      sampler.stop();
    }
  });

  it('a failing nvidia-smi is a sentence for the UI, and the loop keeps going', async () => {
    const clock = new ManualClock(0);
    let n = 0;
    const exec: ExecText = async () => {
      n++;
      throw new Error('NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.');
    };
    const sampler = new GpuSampler({ exec, clock });
    try {
      sampler.start();
      await clock.advance(10_000);
      expect(n).toBe(3);
      expect(sampler.lastError).toMatch(/could not communicate with the NVIDIA driver/);
      expect(sampler.snapshot()).toEqual([]);
    } finally {
      sampler.stop();
    }
  });
});
