// `engy-panel prompt render --checkpoint DIR`: the prompt and ids the miner would send, and
// plain refusals for every bad input.
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../electron/cli/prompt.ts';
import { PromptBuilder } from '../../../electron/engine/miner/prompt-builder.ts';
import { recordingIo } from '../../helpers/cli-io.ts';
import { CHECKPOINT } from './harness.ts';

const request = {
  messages: [
    { role: 'user', content: 'Weather in Paris? ✓' },
    { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
    { role: 'tool', content: 'sunny' },
  ],
  tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
  chat_template_kwargs: { enable_thinking: false },
};

async function cli(args: string[], stdin: string) {
  const io = recordingIo(stdin);
  const code = await run(args, io);
  return { code, out: io.out, err: io.err };
}

describe('engy-panel prompt render', () => {
  it('prints exactly what the miner builds for the request, and for a whole serve frame', async () => {
    const want = await (await PromptBuilder.load(CHECKPOINT)).build(request);
    for (const input of [request, { type: 'serve', corr_id: 'c', request, stream: true }]) {
      const r = await cli(['render', '--checkpoint', CHECKPOINT], JSON.stringify(input));
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const got = JSON.parse(r.out) as { prompt: string; ids: number[] };
      expect(got).toEqual({ prompt: want.text, ids: want.ids });
      expect(got.prompt).toContain('<parameter=city>\nParis\n</parameter>');
      expect(got.ids.length).toBeGreaterThan(10);
    }
  });

  it('refuses bad flags, bad input and a missing checkpoint with a sentence', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'prompt-cli-'));
    writeFileSync(join(empty, 'tokenizer.json'), '{broken');
    const strict = mkdtempSync(join(tmpdir(), 'prompt-cli-'));
    copyFileSync(join(CHECKPOINT, 'tokenizer.json'), join(strict, 'tokenizer.json'));
    writeFileSync(
      join(strict, 'tokenizer_config.json'),
      JSON.stringify({ chat_template: "{%- if not messages %}{{ raise_exception('No messages provided.') }}{%- endif %}{{ messages[0].content }}" }),
    );
    const cases: [string[], string, number, RegExp][] = [
      [[], '{}', 2, /usage: engy-panel prompt render/],
      [['render'], '{}', 2, /--checkpoint DIR is required/],
      [['render', '--checkpoint', CHECKPOINT, '--bogus'], '{}', 2, /Unknown option '--bogus'/],
      [['render', '--checkpoint', '/nonexistent/ckpt'], '{}', 1, /tokenizer\.json does not exist/],
      [['render', '--checkpoint', CHECKPOINT], 'not json', 2, /stdin is not JSON/],
      [['render', '--checkpoint', CHECKPOINT], '[1,2]', 2, /needs a "messages" array/],
      [['render', '--checkpoint', CHECKPOINT], '{"messages": {"__proto__": []}}', 2, /needs a "messages" array/],
      [['render', '--checkpoint', strict], '{"messages": []}', 1, /chat template refused the request: .*No messages provided/],
      [['render', '--checkpoint', empty], '{"messages": [{"role": "user", "content": "hi"}]}', 1, /cannot load the checkpoint/],
    ];
    for (const [args, stdin, code, err] of cases) {
      const r = await cli(args, stdin);
      expect({ args, code: r.code }).toEqual({ args, code });
      expect(r.err).toMatch(err);
      expect(r.out).toBe('');
    }
  });
});
