// The hardware report's host line reads free space through the reading it is given (the engine passes
// the one its checkpoint checks use, so a test's rig disk is the same on every line), and says
// "unknown" (null) when the disk cannot be read instead of failing the report.
import { describe, expect, it } from 'vitest';
import { readHost } from '../../../electron/engine/hardware/host.ts';

const GiB = 1024 ** 3;

describe("the host line's free disk space", () => {
  it('comes from the reading it is given, and is unknown when that fails or the path is refused', async () => {
    const seen: string[] = [];
    const host = await readHost('/rig/data', (p) => {
      seen.push(p);
      return 500 * GiB;
    });
    expect(host.diskFreeGiB).toBe(500);
    expect(host.diskPath).toBe('/rig/data');
    expect(seen).toEqual(['/rig/data']);
    const failing = await readHost('/rig/data', () => {
      throw new Error('EIO');
    });
    expect(failing.diskFreeGiB).toBeNull();
    expect((await readHost('bad\0path')).diskFreeGiB).toBeNull();
  }, 60_000);
});
