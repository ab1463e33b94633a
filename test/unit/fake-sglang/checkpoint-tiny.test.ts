import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { Template } from '@huggingface/jinja';
import { CHECKPOINT_TINY_DIR, writeCheckpointTiny } from '../../fixtures/make-checkpoint-tiny.ts';

const file = (name: string): Buffer => readFileSync(join(CHECKPOINT_TINY_DIR, name));

describe('checkpoint-tiny fixture', () => {
  it('is exactly what the committed generator script writes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ckpt-tiny-'));
    try {
      writeCheckpointTiny(dir);
      const names = readdirSync(dir).sort();
      expect(readdirSync(CHECKPOINT_TINY_DIR).sort()).toEqual(names);
      for (const n of names) expect(readFileSync(join(dir, n)).equals(file(n)), n).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has Qwen3.6-shaped config with the fake model hidden size', () => {
    const config = JSON.parse(file('config.json').toString()) as { architectures: string[]; text_config: { hidden_size: number; vocab_size: number } };
    expect(config.architectures).toEqual(['Qwen3_5MoeForConditionalGeneration']);
    expect(config.text_config.hidden_size).toBe(2048);
  });

  it('has valid safetensors shards and an index that covers them', () => {
    const index = JSON.parse(file('model.safetensors.index.json').toString()) as { metadata: { total_size: number }; weight_map: Record<string, string> };
    const shards = readdirSync(CHECKPOINT_TINY_DIR).filter((n) => n.endsWith('.safetensors'));
    expect(shards).toHaveLength(2);
    const names: string[] = [];
    let total = 0;
    for (const s of shards) {
      const buf = file(s);
      total += buf.length;
      const headerLen = Number(buf.readBigUInt64LE(0));
      const header = JSON.parse(buf.subarray(8, 8 + headerLen).toString('utf8')) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
      let end = 0;
      for (const [name, t] of Object.entries(header)) {
        if (name === '__metadata__') continue;
        names.push(name);
        expect(t.data_offsets[0]).toBe(end);
        end = t.data_offsets[1];
        expect(end - t.data_offsets[0]).toBe(t.shape.reduce((a, b) => a * b, 1) * (t.dtype === 'F8_E4M3' ? 1 : t.dtype === 'BF16' ? 2 : 4));
      }
      expect(8 + headerLen + end).toBe(buf.length);
    }
    expect(Object.keys(index.weight_map).sort()).toEqual(names.sort());
    expect(index.metadata.total_size).toBe(total);
  });

  it('has a real byte-level BPE tokenizer with the chat special tokens', async () => {
    const tok = Tokenizer.fromFile(join(CHECKPOINT_TINY_DIR, 'tokenizer.json'));
    const text = '<|im_start|>user\nThe quick brown fox! Ünïcode ✓ 42<|im_end|>\n<think>\n</think>\n<tool_call>x</tool_call>';
    const enc = await tok.encode(text);
    expect(await tok.decode(enc.getIds(), false)).toBe(text);
    for (const special of ['<|im_start|>', '<|im_end|>', '<think>', '</think>', '<tool_call>', '</tool_call>']) {
      expect((await tok.encode(special)).getIds(), special).toHaveLength(1);
    }
    expect((await tok.encode(' quick')).getIds()).toHaveLength(1); // whole words are merged
  });

  it('renders a Qwen-style chat template with tools, tool calls and the thinking switch', () => {
    const config = JSON.parse(file('tokenizer_config.json').toString()) as { chat_template: string; eos_token: string };
    expect(config.eos_token).toBe('<|im_end|>');
    const t = new Template(config.chat_template);
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
      { role: 'tool', content: '{"temp": 21}' },
    ];
    const thinking = t.render({ messages, tools, add_generation_prompt: true });
    expect(thinking.startsWith('<|im_start|>system\nBe brief.\n\n# Tools')).toBe(true);
    expect(thinking).toContain('<tools>\n{"type": "function", "function": {"name": "get_weather"');
    expect(thinking).toContain('<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call><|im_end|>');
    expect(thinking).toContain('<|im_start|>user\n<tool_response>\n{"temp": 21}\n</tool_response><|im_end|>');
    expect(thinking.endsWith('<|im_start|>assistant\n<think>\n')).toBe(true);
    const plain = t.render({ messages: [{ role: 'user', content: 'Hi' }], add_generation_prompt: true, enable_thinking: false });
    expect(plain).toBe('<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
  });
});
