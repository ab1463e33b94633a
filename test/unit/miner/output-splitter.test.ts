import { describe, expect, it } from 'vitest';
import type { StreamDelta } from '../../../electron/engine/miner/frames.ts';
import { OutputSplitter } from '../../../electron/engine/miner/output-splitter.ts';

function feed(s: OutputSplitter, pieces: string[]): StreamDelta[] {
  return [...pieces.flatMap((p) => s.push(p)), ...s.finish()];
}

const ids = () => {
  let n = 0;
  return () => `call_${n++}`;
};

describe('output splitter', () => {
  it('routes think blocks to reasoning_content even when tags split across deltas', () => {
    const s = new OutputSplitter(true, ids());
    const out = feed(s, ['Let me th', 'ink.</thi', 'nk>\n\nThe answer', ' is 42.']);
    expect(out.map((d) => d.reasoning_content ?? '').join('')).toBe('Let me think.');
    expect(out.map((d) => d.content ?? '').join('')).toBe('The answer is 42.');
    expect(s.message()).toEqual({ role: 'assistant', content: 'The answer is 42.', reasoning_content: 'Let me think.' });
  });

  it('leaves content null when everything was reasoning', () => {
    const s = new OutputSplitter(true, ids());
    feed(s, ['still thinking when the budget ran out']);
    expect(s.message().content).toBeNull();
    expect(s.message().reasoning_content).toBe('still thinking when the budget ran out');
  });

  it('leaves a Hermes JSON tool_call block as content: the Qwen3.6 parser reads only <function=> calls', () => {
    const s = new OutputSplitter(false, ids());
    const out = feed(s, ['<tool_call>\n{"name": "get_weather", "argu', 'ments": {"city": "Paris"}}\n</tool', '_call>']);
    expect(out).toEqual([{ content: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>' }]);
    expect(s.toolCalls).toHaveLength(0);
  });

  it('parses Qwen3-Coder XML tool calls', () => {
    const s = new OutputSplitter(false, ids());
    feed(s, ['<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>']);
    // Without the request's tools nothing is declared: values stay strings, as the reference keeps them.
    expect(s.toolCalls[0]?.function).toEqual({ name: 'get_weather', arguments: '{"city": "Paris", "days": "3"}' });
  });

  it('keeps an unclosed tool block as content', () => {
    const s = new OutputSplitter(false, ids());
    feed(s, ['Hi <tool_call>{"name": "x"']);
    expect(s.message().content).toBe('Hi <tool_call>{"name": "x"');
    expect(s.toolCalls).toHaveLength(0);
  });
});
