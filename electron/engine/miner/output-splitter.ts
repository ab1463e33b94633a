// Splits generated text into OpenAI message parts (PROTOCOL 4.1): `<think>...</think>` goes to
// reasoning_content, `<tool_call>...</tool_call>` blocks become tool_calls, the rest is content.
// Works on streamed deltas: a tag split across two deltas is held back until it is whole.
import { randomBytes } from 'node:crypto';
import type { AssistantMessage, StreamDelta, ToolCallDelta } from './frames.ts';

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';
const TOOL_OPEN = '<tool_call>';
const TOOL_CLOSE = '</tool_call>';

type Mode = 'content' | 'reasoning' | 'tool';

export class OutputSplitter {
  private mode: Mode;
  private buf = '';
  private toolBuf = '';
  private contentStarted = false;
  private reasoningStarted = false;
  private readonly calls: ToolCallDelta[] = [];
  private content = '';
  private reasoning = '';

  /** `startInReasoning`: the prompt ended with `<think>` (the template opened the block). */
  private readonly newId: () => string;

  constructor(startInReasoning: boolean, newId: () => string = () => `call_${randomBytes(12).toString('hex')}`) {
    this.newId = newId;
    this.mode = startInReasoning ? 'reasoning' : 'content';
  }

  /** Feed the next piece of output text; returns what can already be said for sure. */
  push(text: string): StreamDelta[] {
    this.buf += text;
    return this.drain(false);
  }

  /** The generation ended: flush held-back text (an unclosed tool block is content). */
  finish(): StreamDelta[] {
    return this.drain(true);
  }

  get toolCalls(): ToolCallDelta[] {
    return this.calls;
  }

  /** The final message, from everything pushed. */
  message(): AssistantMessage {
    const msg: AssistantMessage = { role: 'assistant', content: this.content.trim().length > 0 ? this.content.trimEnd() : null };
    const reasoning = this.reasoning.trim();
    if (reasoning.length > 0) msg.reasoning_content = reasoning;
    if (this.calls.length > 0) msg.tool_calls = this.calls;
    return msg;
  }

  private drain(final: boolean): StreamDelta[] {
    const out: StreamDelta[] = [];
    for (;;) {
      if (this.mode === 'reasoning') {
        const i = this.buf.indexOf(THINK_CLOSE);
        if (i >= 0) {
          this.emitReasoning(this.buf.slice(0, i), out);
          this.buf = this.buf.slice(i + THINK_CLOSE.length);
          this.mode = 'content';
          continue;
        }
        const keep = final ? 0 : heldBack(this.buf, [THINK_CLOSE]);
        this.emitReasoning(this.buf.slice(0, this.buf.length - keep), out);
        this.buf = this.buf.slice(this.buf.length - keep);
        return mergeDeltas(out);
      }
      if (this.mode === 'tool') {
        const i = this.buf.indexOf(TOOL_CLOSE);
        if (i >= 0) {
          this.toolBuf += this.buf.slice(0, i);
          this.buf = this.buf.slice(i + TOOL_CLOSE.length);
          this.mode = 'content';
          const call = parseToolBlock(this.toolBuf, this.calls.length, this.newId);
          if (call) {
            this.calls.push(call);
            out.push({ tool_calls: [call] });
          } else this.emitContent(`${TOOL_OPEN}${this.toolBuf}${TOOL_CLOSE}`, out);
          this.toolBuf = '';
          continue;
        }
        if (final) {
          this.emitContent(`${TOOL_OPEN}${this.toolBuf}${this.buf}`, out);
          this.toolBuf = '';
          this.buf = '';
          return mergeDeltas(out);
        }
        const keep = heldBack(this.buf, [TOOL_CLOSE]);
        this.toolBuf += this.buf.slice(0, this.buf.length - keep);
        this.buf = this.buf.slice(this.buf.length - keep);
        return mergeDeltas(out);
      }
      const think = this.buf.indexOf(THINK_OPEN);
      const tool = this.buf.indexOf(TOOL_OPEN);
      const next = think >= 0 && (tool < 0 || think < tool) ? { at: think, tag: THINK_OPEN, mode: 'reasoning' as const } : tool >= 0 ? { at: tool, tag: TOOL_OPEN, mode: 'tool' as const } : null;
      if (next) {
        this.emitContent(this.buf.slice(0, next.at), out);
        this.buf = this.buf.slice(next.at + next.tag.length);
        this.mode = next.mode;
        continue;
      }
      const keep = final ? 0 : heldBack(this.buf, [THINK_OPEN, TOOL_OPEN]);
      this.emitContent(this.buf.slice(0, this.buf.length - keep), out);
      this.buf = this.buf.slice(this.buf.length - keep);
      return mergeDeltas(out);
    }
  }

  private emitContent(text: string, out: StreamDelta[]): void {
    // The model puts blank lines after </think> and between blocks: never open content with them.
    const t = this.contentStarted ? text : text.replace(/^\s+/, '');
    if (t.length === 0) return;
    this.contentStarted = true;
    this.content += t;
    out.push({ content: t });
  }

  private emitReasoning(text: string, out: StreamDelta[]): void {
    const t = this.reasoningStarted ? text : text.replace(/^\s+/, '');
    if (t.length === 0) return;
    this.reasoningStarted = true;
    this.reasoning += t;
    out.push({ reasoning_content: t });
  }
}

/** How many trailing characters could be the start of one of the tags. */
function heldBack(buf: string, tags: string[]): number {
  let keep = 0;
  for (const tag of tags) {
    for (let n = Math.min(tag.length - 1, buf.length); n > keep; n--) {
      if (buf.endsWith(tag.slice(0, n))) {
        keep = n;
        break;
      }
    }
  }
  return keep;
}

/** Consecutive deltas of the same kind become one, so a coalesced frame stays small. */
export function mergeDeltas(deltas: StreamDelta[]): StreamDelta[] {
  const out: StreamDelta[] = [];
  for (const d of deltas) {
    const last = out[out.length - 1];
    if (last && d.content !== undefined && last.content !== undefined && last.tool_calls === undefined) last.content += d.content;
    else if (last && d.reasoning_content !== undefined && last.reasoning_content !== undefined && last.tool_calls === undefined)
      last.reasoning_content += d.reasoning_content;
    else out.push({ ...d });
  }
  return out;
}

/** A `<tool_call>` body: Hermes JSON `{"name", "arguments"}` or Qwen3-Coder `<function=..><parameter=..>`. */
export function parseToolBlock(body: string, index: number, newId: () => string): ToolCallDelta | null {
  const text = body.trim();
  const make = (name: string, args: unknown): ToolCallDelta => ({
    index,
    id: newId(),
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
  });
  if (text.startsWith('{')) {
    try {
      const v = JSON.parse(text) as { name?: unknown; arguments?: unknown; parameters?: unknown };
      if (typeof v.name === 'string') return make(v.name, v.arguments ?? v.parameters ?? {});
    } catch {
      return null;
    }
    return null;
  }
  const fn = /^<function=([^>\s]+)>([\s\S]*?)(?:<\/function>|$)/.exec(text);
  if (!fn) return null;
  const args: Record<string, unknown> = {};
  const re = /<parameter=([^>\s]+)>([\s\S]*?)<\/parameter>/g;
  for (let m = re.exec(fn[2]!); m; m = re.exec(fn[2]!)) args[m[1]!] = parameterValue(m[2]!);
  return make(fn[1]!, args);
}

function parameterValue(raw: string): unknown {
  const v = raw.replace(/^\n/, '').replace(/\n$/, '');
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}
