// Streams generated text as OpenAI deltas (PROTOCOL 4.1) that agree with the final message the
// reference shapes (assemble-message.ts): reasoning until `</think>` (from the start when the prompt
// opened the block, or when the text itself opens with `<think>`), then content, then, from the
// first `<tool_call>` on, nothing but calls: each closed block is streamed as a call once it closes,
// and at the end a tail that held no call at all goes out as content (the reference's message then
// keeps it as content too). A tag split across two deltas is held back until it is whole.
// Known gaps, shared with the reference's own stream (streamed text cannot be taken back): a
// `</think>` after streamed content, without any `<think>`, turns that content into reasoning in the
// final message only; a second `<think>` inside reasoning drops the reasoning streamed before it.
import { randomBytes } from 'node:crypto';
import { assembleMessage, THINK_CLOSE, THINK_OPEN, type FinishReason } from './assemble-message.ts';
import type { AssistantMessage, StreamDelta, ToolCallDelta } from './frames.ts';
import { pyStrip } from './jinja-python-strings.ts';
import { CALL_TAGS, parseToolCalls } from './tool-calls.ts';

type Mode = 'start' | 'content' | 'reasoning' | 'tail';

export class OutputSplitter {
  private mode: Mode;
  /** Everything pushed: what the final message is assembled from. */
  private raw = '';
  /** Text read but not yet said in the current mode. */
  private buf = '';
  /** From the first `<tool_call>` on. */
  private tail = '';
  private contentStarted = false;
  private reasoningStarted = false;
  private readonly calls: ToolCallDelta[] = [];
  private readonly thinkOpen: boolean;
  private readonly newId: () => string;
  private readonly tools: unknown;

  /** `thinkOpen`: the prompt ended with `<think>`; `tools`: the request's tools (declared types). */
  constructor(thinkOpen: boolean, newId: () => string = () => `call_${randomBytes(12).toString('hex')}`, tools: unknown = undefined) {
    this.thinkOpen = thinkOpen;
    this.newId = newId;
    this.tools = tools;
    this.mode = thinkOpen ? 'reasoning' : 'start';
  }

  /** Feed the next piece of output text; returns what can already be said for sure. */
  push(text: string): StreamDelta[] {
    this.raw += text;
    this.buf += text;
    return this.drain(false);
  }

  /** The generation ended: say what was held back and settle the calls. */
  finish(): StreamDelta[] {
    const out = this.drain(true);
    if (this.mode === 'tail') {
      this.emitCalls(out);
      // No call parsed out of it: the reference's message keeps the whole tail as content.
      if (this.calls.length === 0) this.emitContent(this.tail, out);
    }
    return mergeDeltas(out);
  }

  get toolCalls(): ToolCallDelta[] {
    return this.calls;
  }

  /** The final message and finish_reason from everything pushed, naming calls by their streamed ids. */
  assemble(truncated: boolean): { message: AssistantMessage; finish: FinishReason } {
    let n = 0;
    return assembleMessage(this.raw, this.tools, this.thinkOpen, truncated, () => this.calls[n++]?.id ?? this.newId());
  }

  message(): AssistantMessage {
    return this.assemble(false).message;
  }

  private drain(final: boolean): StreamDelta[] {
    const out: StreamDelta[] = [];
    for (;;) {
      if (this.mode === 'start') {
        if (this.buf.startsWith(THINK_OPEN)) {
          this.buf = this.buf.slice(THINK_OPEN.length);
          this.mode = 'reasoning';
          continue;
        }
        if (!final && THINK_OPEN.startsWith(this.buf)) return out;
        this.mode = 'content';
        continue;
      }
      if (this.mode === 'reasoning') {
        const i = this.buf.indexOf(THINK_CLOSE);
        if (i >= 0) {
          this.emitReasoning(this.buf.slice(0, i), out);
          this.buf = this.buf.slice(i + THINK_CLOSE.length);
          this.mode = 'content';
          continue;
        }
        const keep = final ? 0 : heldBack(this.buf, THINK_CLOSE);
        this.emitReasoning(this.buf.slice(0, this.buf.length - keep), out);
        this.buf = this.buf.slice(this.buf.length - keep);
        return mergeDeltas(out);
      }
      if (this.mode === 'tail') {
        const before = this.tail.length;
        this.tail += this.buf;
        this.buf = '';
        // Only a close tag that arrived with this piece can complete a block.
        if (this.tail.lastIndexOf(CALL_TAGS.close) + CALL_TAGS.close.length > before) this.emitCalls(out);
        return mergeDeltas(out);
      }
      const call = this.buf.indexOf(CALL_TAGS.open);
      if (call >= 0) {
        this.emitContent(this.buf.slice(0, call), out);
        this.buf = this.buf.slice(call);
        this.mode = 'tail';
        continue;
      }
      const keep = final ? 0 : heldBack(this.buf, CALL_TAGS.open);
      this.emitContent(this.buf.slice(0, this.buf.length - keep), out);
      this.buf = this.buf.slice(this.buf.length - keep);
      return mergeDeltas(out);
    }
  }

  /** Calls in the closed blocks so far are final (a later block never changes an earlier one). */
  private emitCalls(out: StreamDelta[]): void {
    const parsed = parseToolCalls(this.tail, this.tools);
    for (let i = this.calls.length; i < parsed.length; i++) {
      const call: ToolCallDelta = { index: i, id: this.newId(), type: 'function', function: { name: parsed[i]!.name, arguments: parsed[i]!.arguments } };
      this.calls.push(call);
      out.push({ tool_calls: [call] });
    }
  }

  private emitContent(text: string, out: StreamDelta[]): void {
    // The message's content is stripped: never open the stream's content with whitespace.
    const t = this.contentStarted ? text : pyStrip(text, null, true, false);
    if (t.length === 0) return;
    this.contentStarted = true;
    out.push({ content: t });
  }

  private emitReasoning(text: string, out: StreamDelta[]): void {
    const t = this.reasoningStarted ? text : pyStrip(text, null, true, false);
    if (t.length === 0) return;
    this.reasoningStarted = true;
    out.push({ reasoning_content: t });
  }
}

/** How many trailing characters could be the start of `tag`. */
function heldBack(buf: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, buf.length); n > 0; n--) if (buf.endsWith(tag.slice(0, n))) return n;
  return 0;
}

/** Consecutive deltas of the same kind become one, so a coalesced frame stays small. */
export function mergeDeltas(deltas: StreamDelta[]): StreamDelta[] {
  const out: StreamDelta[] = [];
  for (const d of deltas) {
    const last = out[out.length - 1];
    if (last && d.content !== undefined && last.content !== undefined && last.tool_calls === undefined) last.content += d.content;
    else if (last && d.reasoning_content !== undefined && last.reasoning_content !== undefined && last.tool_calls === undefined) last.reasoning_content += d.reasoning_content;
    else out.push({ ...d });
  }
  return out;
}
