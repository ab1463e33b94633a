// One reading of free disk space (electron/engine/lib/disk-free.ts) for the host line, the checkpoint
// folder check and the download: a path that does not exist yet is measured at its nearest existing
// ancestor; one the system refuses throws (test/integration/hardware/host-disk.test.ts: the host line
// then reads unknown).
import { statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freeBytesAt } from '../../../electron/engine/lib/disk-free.ts';

const GiB = 1024 ** 3;

describe('free disk space', () => {
  it('is read at the nearest existing ancestor of a path not made yet', () => {
    const s = statfsSync(tmpdir());
    const here = freeBytesAt(join(tmpdir(), 'not-made-yet', 'deeper', 'checkpoint'));
    // The disk may move between the two reads (other writers); the same filesystem answers within a GiB.
    expect(Math.abs(here - s.bavail * s.bsize)).toBeLessThan(GiB);
    expect(here).toBeGreaterThan(0);
  });

  it('throws on a path the system refuses, rather than measuring some folder above it', () => {
    expect(() => freeBytesAt('bad\0path')).toThrow(/not a path/);
    expect(() => freeBytesAt(join(tmpdir(), 'x\0', 'y'))).toThrow(/not a path/);
  });
});
