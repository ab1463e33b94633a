// Issue 17 item 1: a continuation call (chunked generation) whose overlap token is part of a
// multi-byte character still streams. The fake serve spells 中 in three byte tokens at a position
// chosen so that the first chunk ends on its lead byte. (An overlap on a later byte of the
// character is not covered: the serve's own detokenizer then shows the orphan bytes as U+FFFD,
// the reference's rule included; see docs/miner-conformance.md.)
import { describe, expect, it } from 'vitest';
import { PromptBuilder } from '../../../electron/engine/miner/prompt-builder.ts';
import { CHECKPOINT, startFakeServe, withReadyMiner, withServe } from './harness.ts';

const CHUNK = 8;
const request = { messages: [{ role: 'user', content: 'Write a long summary of the river trip, with every detail you remember.' }], max_tokens: 40 };

describe('streamed text across a chunk boundary that splits a character', () => {
  it('streams exactly the final text when the overlap token is the lead byte of 中', { timeout: 60_000 }, async () => {
    const prompt = await (await PromptBuilder.load(CHECKPOINT)).build(request);
    // Output index k sits at absolute position promptLength + k; the overlap is index CHUNK-1.
    const at = prompt.ids.length + CHUNK - 1;
    await withServe(startFakeServe(['--split-char-at', String(at)]), (serve) =>
      withReadyMiner(
        [serve.url],
        async (gw) => {
          const r = await gw.serve(request, { stream: true, leg: 0 }).done;
          const out = r.response!.output;
          const msg = out.choices![0]!.message;
          const final = `${msg.reasoning_content ?? ''}|${msg.content ?? ''}`;
          expect(final).toContain('中');
          expect(final).not.toContain('\uFFFD');
          // The generation went past the boundary and past the character.
          expect(out.usage!.completion_tokens).toBeGreaterThan(CHUNK + 3);
          const streamed = `${r.chunks.map((c) => c.delta.reasoning_content ?? '').join('')}|${r.chunks.map((c) => c.delta.content ?? '').join('')}`;
          expect(streamed).toBe(final);
          expect(r.audit?.verdict).toBe('pass');
        },
        { miner: { chunkTokens: CHUNK } },
      ),
    );
  });
});
