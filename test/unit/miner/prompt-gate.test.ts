// PromptBuilder.build takes PROMPT_CONCURRENCY prompts at a time, the rest in arrival order
// (prompt-builder.ts says why: a burst's first request must not wait for the whole burst).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROMPT_CONCURRENCY, PromptBuilder } from '../../../electron/engine/miner/prompt-builder.ts';

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
  it(`renders ${PROMPT_CONCURRENCY} at once and the rest in arrival order as slots free`, async () => {
    const { pb, rendered } = await builder();
    const builds = Array.from({ length: 20 }, (_, i) => pb.build(ask(i)));
    // Only the first few were rendered while the burst was taken in.
    expect(rendered).toEqual([0, 1, 2, 3].slice(0, PROMPT_CONCURRENCY));
    expect(pb.queue).toEqual({ building: PROMPT_CONCURRENCY, waiting: 20 - PROMPT_CONCURRENCY });
    const done = await Promise.all(builds);
    expect(rendered).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Each build got its own prompt's ids.
    const alone = await pb.build(ask(7));
    expect(done[7]!.ids).toEqual(alone.ids);
    expect(done[7]!.ids).not.toEqual(done[8]!.ids);
    expect(pb.queue).toEqual({ building: 0, waiting: 0 });
  });

  it('a prompt the template refuses gives its slot to the next one', async () => {
    const pb = await PromptBuilder.load(CHECKPOINT);
    const refused = Array.from({ length: PROMPT_CONCURRENCY + 2 }, () => pb.build({ messages: 'not a list' as unknown as unknown[] }));
    const fine = pb.build(ask(1));
    for (const r of refused) await expect(r).rejects.toThrow('messages');
    expect((await fine).ids.length).toBeGreaterThan(0);
    expect(pb.queue).toEqual({ building: 0, waiting: 0 });
  });
});
