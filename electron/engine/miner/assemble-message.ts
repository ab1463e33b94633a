// The assistant message and finish_reason out of the whole decoded text, as the reference miner
// shapes them (hanlinai/engy miner/engy_miner.py at df70f57, `_split_think` and
// `_assemble_message`): reasoning is what precedes the first `</think>` (after a `<think>` if the
// text has one), or all of it when the block never closes; content is the rest, stripped, cut at
// the first `<tool_call>` when a call parsed; `length` when the budget ended the generation, even
// inside reasoning or after a parsed call.
import type { AssistantMessage, MessageToolCall } from './frames.ts';
import { pyStrip } from './jinja-python-strings.ts';
import { CALL_TAGS, parseToolCalls } from './tool-calls.ts';

export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';

export type FinishReason = 'stop' | 'length' | 'tool_calls';

const strip = (s: string) => pyStrip(s, null, true, true);

/** Everything after the first `<think>`, or the whole text without one (Python's `split(x, 1)[-1]`). */
function afterThinkOpen(s: string): string {
  const i = s.indexOf(THINK_OPEN);
  return i < 0 ? s : s.slice(i + THINK_OPEN.length);
}

/** [visible text, reasoning]. `thinkOpen`: the prompt ended inside a `<think>` block. */
export function splitThink(text: string, thinkOpen: boolean): [string, string] {
  const close = text.indexOf(THINK_CLOSE);
  if (close >= 0) {
    const tail = text.slice(close + THINK_CLOSE.length);
    return [pyStrip(tail, '\n', true, false), strip(afterThinkOpen(text.slice(0, close)))];
  }
  if (thinkOpen) return ['', strip(afterThinkOpen(text))];
  if (text.startsWith(THINK_OPEN)) return ['', strip(text.slice(THINK_OPEN.length))];
  return [text, ''];
}

/**
 * The message and finish_reason for the whole output `text`. `newId` names each call (the stream
 * passes the ids its deltas carried, so both agree); `truncated`: the token budget ran out.
 */
export function assembleMessage(text: string, tools: unknown, thinkOpen: boolean, truncated: boolean, newId: () => string): { message: AssistantMessage; finish: FinishReason } {
  const [visible, reasoning] = splitThink(text, thinkOpen);
  const parsed = visible.includes(CALL_TAGS.open) ? parseToolCalls(visible, tools) : [];
  // With a call, only the lead-in before the first <tool_call> is content.
  const content = strip(parsed.length > 0 ? visible.slice(0, visible.indexOf(CALL_TAGS.open)) : visible);
  const message: AssistantMessage = { role: 'assistant', content: content.length > 0 ? content : null };
  if (parsed.length > 0) {
    message.tool_calls = parsed.map((c): MessageToolCall => ({ id: newId(), type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  if (reasoning.length > 0) message.reasoning_content = reasoning;
  // "length" outranks "tool_calls": a call parsed out of a cut-off generation is still cut off.
  const finish: FinishReason = truncated ? 'length' : parsed.length > 0 ? 'tool_calls' : 'stop';
  return { message, finish };
}
