// Splits generated text into OpenAI message parts (PROTOCOL 4.1): `<think>...</think>` goes to
// reasoning_content, tool calls are read as the reference reads them (tool-calls.ts), the rest
// is content. Works on streamed deltas: a tag split across two deltas is held back until it is
// whole. Content stops at the first call (the reference keeps only the text before it), so from
// `<tool_call>` (or a bare `<function=`) on, text is held; each closed call block is streamed as
// a tool call once its calls are final, and the end of the generation settles the rest.
import { randomBytes } from 'node:crypto';
import type { AssistantMessage, StreamDelta, ToolCallDelta } from './frames.ts';
import { CALL_TAGS, parseToolCallsSafe, type ParsedCall } from './tool-calls.ts';

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

type Mode = 'content' | 'reasoning' | 'tail';

export class OutputSplitter {
  private mode: Mode;
  private buf = '';
  /** Every piece of text read in content mode, the held tail included: what the call parser reads. */
  private contentRaw = '';
  /** How much of contentRaw went out as content. */
  private contentRawSent = 0;
  /** contentRaw up to here has been searched for a closed call block. */
  private closedUpTo = 0;
  private contentStarted = false;
  private reasoningStarted = false;
  private readonly calls: ToolCallDelta[] = [];
  private content = '';
  private reasoning = '';

  /** `startInReasoning`: the prompt ended with `<think>` (the template opened the block). */
  private readonly newId: () => string;

  private readonly tools: unknown;

  /** `tools`: the request's tool list, whose declared parameter types convert the values. */
  constructor(startInReasoning: boolean, newId: () => string = () => `call_${randomBytes(12).toString('hex')}`, tools: unknown = undefined) {
    this.newId = newId;
    this.tools = tools;
    this.mode = startInReasoning ? 'reasoning' : 'content';
  }

  /** Feed the next piece of output text; returns what can already be said for sure. */
  push(text: string): StreamDelta[] {
    this.buf += text;
    return this.drain(false);
  }

  /** The generation ended: flush held-back text and settle the calls and the content. */
  finish(): StreamDelta[] {
    const out = this.drain(true);
    const parsed = parseToolCallsSafe(this.contentRaw, this.tools);
    const text = parsed.content ?? '';
    if (text.length > this.contentRawSent) this.emitContentRaw(text.slice(this.contentRawSent), out);
    this.emitCalls(parsed.calls, out);
    return mergeDeltas(out);
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
      if (this.mode === 'tail') {
        const from = this.contentRaw.length;
        this.contentRaw += this.buf;
        this.buf = '';
        this.streamClosedCalls(from, out);
        return mergeDeltas(out);
      }
      const think = this.buf.indexOf(THINK_OPEN);
      const call = firstOf(this.buf, [CALL_TAGS.open, CALL_TAGS.fn]);
      if (think >= 0 && (call < 0 || think < call)) {
        this.emitContentRaw(this.buf.slice(0, think), out);
        this.buf = this.buf.slice(think + THINK_OPEN.length);
        this.mode = 'reasoning';
        continue;
      }
      if (call >= 0) {
        this.emitContentRaw(this.buf.slice(0, call), out);
        this.buf = this.buf.slice(call);
        this.mode = 'tail';
        continue;
      }
      const keep = final ? 0 : heldBack(this.buf, [THINK_OPEN, CALL_TAGS.open, CALL_TAGS.fn]);
      this.emitContentRaw(this.buf.slice(0, this.buf.length - keep), out);
      this.buf = this.buf.slice(this.buf.length - keep);
      return mergeDeltas(out);
    }
  }

  /** Calls in blocks closed so far are final: stream the ones not yet sent. */
  private streamClosedCalls(from: number, out: StreamDelta[]): void {
    const close = this.contentRaw.lastIndexOf(CALL_TAGS.close);
    // Only a close tag that arrived with this piece can change anything.
    if (close < 0 || close + CALL_TAGS.close.length <= from) return;
    const end = close + CALL_TAGS.close.length;
    if (end <= this.closedUpTo) return;
    this.closedUpTo = end;
    this.emitCalls(parseToolCallsSafe(this.contentRaw.slice(0, end), this.tools).calls, out);
  }

  private emitCalls(calls: ParsedCall[], out: StreamDelta[]): void {
    for (let i = this.calls.length; i < calls.length; i++) {
      const call: ToolCallDelta = { index: i, id: this.newId(), type: 'function', function: { name: calls[i]!.name, arguments: calls[i]!.arguments } };
      this.calls.push(call);
      out.push({ tool_calls: [call] });
    }
  }

  private emitContentRaw(text: string, out: StreamDelta[]): void {
    this.contentRaw += text;
    this.contentRawSent += text.length;
    this.emitContent(text, out);
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

function firstOf(buf: string, tags: string[]): number {
  let at = -1;
  for (const t of tags) {
    const i = buf.indexOf(t);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  return at;
}
