// Bytes per request and parse time for a 13k-token prompt with and without the hidden-states trim,
// at the real hidden size (2048), against two fake serves side by side in this one run.
import { startFakeSglang } from '../test/doubles/fake-sglang/spawn.ts';
import { generateAndProve, promptIds } from '../test/helpers/trim-compare.ts';

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;

export async function bench(): Promise<void> {
  const flags = ['--enable-return-hidden-states'];
  const full = startFakeSglang(flags);
  const trimmed = startFakeSglang([...flags, '--trim-hidden-states']);
  try {
    await Promise.all([full.waitForLine(/fired up and ready/), trimmed.waitForLine(/fired up and ready/)]);
    const ids = promptIds(13_000);
    // One at a time so each parse has the core to itself.
    const a = await generateAndProve(await full.url(), ids, 256, false);
    const b = await generateAndProve(await trimmed.url(), ids, 256, false);
    const same = a.proofs.length === b.proofs.length && a.proofs.every((p, i) => p === b.proofs[i]);
    console.log(`13k-token prompt, 256 new tokens, hidden 2048 (non-streaming /generate):`);
    console.log(`  untrimmed: ${mb(a.bytes)} per request, received + parsed in ${a.parseMs.toFixed(0)} ms`);
    console.log(`  trimmed:   ${(b.bytes / 1024).toFixed(0)} KB per request, received + parsed in ${b.parseMs.toFixed(0)} ms`);
    console.log(`  ratio:     ${(a.bytes / b.bytes).toFixed(0)}x fewer bytes, ${(a.parseMs / Math.max(1, b.parseMs)).toFixed(1)}x less time; proofs identical: ${same}`);
  } finally {
    await full.stop();
    await trimmed.stop();
  }
}
