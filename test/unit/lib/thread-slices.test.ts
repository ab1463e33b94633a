import { afterEach, describe, expect, it } from 'vitest';
import { threadSlices } from '../../../electron/engine/lib/thread-slices.ts';

describe('thread slices', () => {
  afterEach(() => threadSlices.disable());

  it('records nothing while off and passes the result and the throw through', () => {
    threadSlices.enable();
    threadSlices.disable();
    expect(threadSlices.run('x', () => 42)).toBe(42);
    expect(() =>
      threadSlices.run('x', () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(threadSlices.recorded()).toEqual([]);
    expect(threadSlices.summary().size).toBe(0);
  });

  it('names each slice with its start, wall time and CPU while on, a throwing one included', () => {
    threadSlices.enable();
    const before = performance.now();
    threadSlices.run('parse', () => undefined);
    expect(() =>
      threadSlices.run('publish', () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    threadSlices.run('parse', () => undefined);
    const r = threadSlices.recorded();
    expect(r.map((x) => x.name)).toEqual(['parse', 'publish', 'parse']);
    for (const x of r) {
      expect(x.at).toBeGreaterThanOrEqual(before);
      expect(x.ms).toBeGreaterThanOrEqual(0);
      expect(x.cpuMs).toBeGreaterThanOrEqual(0);
    }
    expect(threadSlices.summary().get('parse')?.count).toBe(2);
    // A new run starts empty.
    threadSlices.enable();
    expect(threadSlices.recorded()).toEqual([]);
  });
});
