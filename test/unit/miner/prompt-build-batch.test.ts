// PromptBuilder.build renders in the caller's own call and tokenizes with the other prompts the same
// callback takes in (encode-batcher.ts says why: a read's requests leave together, after one tokenizer
// round trip).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PromptBuilder } from '../../../electron/engine/miner/prompt-builder.ts';

const CHECKPOINT = join(import.meta.dirname, '..', '..', 'fixtures', 'checkpoint-tiny');
const ask = (i: number) => ({ messages: [{ role: 'user', content: `Question ${i}: how does a river carve a valley?` }] });

async function builder(): Promise<{ pb: PromptBuilder; rendered: number[] }> {
  const pb = await PromptBuilder.load(CHECKPOINT);
  const rendered: number[] = [];
  const render = pb.render.bind(pb);
  pb.render = (req) => {
    rendered.push(Number(/Question (\d+)/.exec(JSON.stringify(req))?.[1]));
    return render(req);
  };
  return { pb, rendered };
}

describe('prompt builds in a burst', () => {
  it("renders every prompt in the caller's own call and tokenizes them together", async () => {
    const { pb, rendered } = await builder();
    const builds = Array.from({ length: 20 }, (_, i) => pb.build(ask(i)));
    expect(rendered).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(pb.queue).toEqual({ queued: 20, encoding: 0 });
    const done = await Promise.all(builds);
    // Each build got its own prompt's ids, as a build on its own gives them.
    const lone = await pb.build(ask(7));
    expect(done[7]!.ids).toEqual(lone.ids);
    expect(done[7]!.text).toBe(lone.text);
    expect(done[7]!.ids).not.toEqual(done[8]!.ids);
    expect(pb.queue).toEqual({ queued: 0, encoding: 0 });
  });

  it('a prompt the template refuses is refused at once; the others taken in with it are built', async () => {
    const pb = await PromptBuilder.load(CHECKPOINT);
    const refused = Array.from({ length: 6 }, () => pb.build({ messages: 'not a list' as unknown as unknown[] }));
    const fine = pb.build(ask(1));
    expect(pb.queue).toEqual({ queued: 1, encoding: 0 });
    for (const r of refused) await expect(r).rejects.toThrow('messages');
    expect((await fine).ids.length).toBeGreaterThan(0);
    expect(pb.queue).toEqual({ queued: 0, encoding: 0 });
  });
});
