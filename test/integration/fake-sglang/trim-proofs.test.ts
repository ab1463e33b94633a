import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSglang, type FakeSglang } from '../../doubles/fake-sglang/spawn.ts';
import { generateAndProve, promptIds } from '../../helpers/trim-compare.ts';

// A 13k-token probe-sized prompt. Hidden size 256 keeps the untrimmed body (one row per prompt
// token) around 40 MB here instead of ~270 MB at 2048, without changing what is compared.
const FLAGS = ['--enable-return-hidden-states', '--hidden-size', '256'];

describe('hidden-states trim: same proofs, a fraction of the bytes', () => {
  let full: FakeSglang;
  let trimmed: FakeSglang;
  beforeAll(async () => {
    full = startFakeSglang(FLAGS);
    trimmed = startFakeSglang([...FLAGS, '--trim-hidden-states']);
    await Promise.all([full.waitForLine(/fired up and ready/), trimmed.waitForLine(/fired up and ready/)]);
  });
  afterAll(async () => {
    await full?.stop();
    await trimmed?.stop();
  });

  it.each([false, true])('a 13k-token prompt (stream %s): kilobytes trimmed, megabytes untrimmed, byte-identical proofs', { timeout: 120_000 }, async (stream) => {
    const ids = promptIds(13_000, stream ? 11 : 7);
    const [a, b] = await Promise.all([generateAndProve(await full.url(), ids, 40, stream), generateAndProve(await trimmed.url(), ids, 40, stream)]);
    expect(a.bytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(b.bytes).toBeLessThan(256 * 1024);
    expect(b.outputTokenIds).toEqual(a.outputTokenIds);
    expect(b.proofs.length).toBeGreaterThan(0);
    expect(b.proofs).toEqual(a.proofs);
  });
});
