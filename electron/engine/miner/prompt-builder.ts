// PROTOCOL 4.1: the checkpoint's own chat template (Jinja) over the messages as sent, then its
// own tokenizer. The token ids go into the proof, so this must match what the auditor renders.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { Tokenizer } from 'tokenizers';
import { EncodeBatcher } from './encode-batcher.ts';
import { installPythonStringMethods } from './jinja-python-strings.ts';
import { pyJsonLoads, type PyValue } from './py-json.ts';

installPythonStringMethods();

export interface BuiltPrompt {
  /** The rendered template text the ids encode. */
  text: string;
  ids: number[];
  /** The template opened a `<think>` block: the output starts inside reasoning. */
  startsInReasoning: boolean;
}

interface TokenizerConfig {
  chat_template?: string | { name: string; template: string }[];
  bos_token?: string | { content: string } | null;
  eos_token?: string | { content: string } | null;
  pad_token?: string | { content: string } | null;
  unk_token?: string | { content: string } | null;
}

export class PromptBuilder {
  private readonly template: Template;
  private readonly tokenizer: Tokenizer;
  private readonly specials: Record<string, string>;
  private readonly encoder: EncodeBatcher;

  private constructor(template: Template, tokenizer: Tokenizer, specials: Record<string, string>) {
    this.template = template;
    this.tokenizer = tokenizer;
    this.specials = specials;
    this.encoder = new EncodeBatcher(tokenizer);
  }

  static async load(checkpointDir: string): Promise<PromptBuilder> {
    const cfg = JSON.parse(await readFile(join(checkpointDir, 'tokenizer_config.json'), 'utf8')) as TokenizerConfig;
    let source = cfg.chat_template;
    if (source === undefined) {
      // Newer checkpoints keep the template in its own file.
      source = await readFile(join(checkpointDir, 'chat_template.jinja'), 'utf8').catch(() => undefined);
    }
    if (Array.isArray(source)) source = source.find((t) => t.name === 'default')?.template ?? source[0]?.template;
    if (typeof source !== 'string') throw new Error(`the checkpoint at ${checkpointDir} has no chat template (tokenizer_config.json chat_template)`);
    const tokenizer = Tokenizer.fromFile(join(checkpointDir, 'tokenizer.json'));
    const specials: Record<string, string> = {};
    for (const k of ['bos_token', 'eos_token', 'pad_token', 'unk_token'] as const) {
      const v = cfg[k];
      const s = typeof v === 'string' ? v : v && typeof v === 'object' ? v.content : undefined;
      if (s !== undefined) specials[k] = s;
    }
    return new PromptBuilder(new Template(source), tokenizer, specials);
  }

  render(request: ChatRequest): string {
    return renderChatTemplate(this.template, this.specials, request);
  }

  /**
   * Renders now, in the caller's own call (a template that refuses the request rejects at once), and
   * tokenizes with the other prompts the same callback takes in (encode-batcher.ts says why).
   */
  async build(request: ChatRequest): Promise<BuiltPrompt> {
    const text = this.render(request);
    const ids = await this.encoder.encode(text);
    return { text, ids, startsInReasoning: text.trimEnd().endsWith('<think>') };
  }

  /** Prompts waiting for their batch to go and prompts being tokenized, for tests and diagnostics. */
  get queue(): { queued: number; encoding: number } {
    return this.encoder.pending;
  }

  decode(ids: number[]): Promise<string> {
    return this.tokenizer.decode(ids, true);
  }
}

export interface ChatRequest {
  messages: unknown[];
  tools?: unknown;
  chat_template_kwargs?: unknown;
}

/**
 * The context transformers' apply_chat_template gives the template: the tokenizer's special
 * tokens, the request's chat_template_kwargs, the messages (tool-call arguments as objects),
 * `add_generation_prompt=True` and `tools` when the request has some.
 */
export function renderChatTemplate(template: Template, specials: Record<string, string>, request: ChatRequest): string {
  const kwargs = isObject(request.chat_template_kwargs) ? request.chat_template_kwargs : {};
  const ctx: Record<string, unknown> = {
    ...specials,
    ...kwargs,
    messages: request.messages.map(normaliseToolCallArguments),
    add_generation_prompt: true,
  };
  if (Array.isArray(request.tools) && request.tools.length > 0) ctx.tools = request.tools;
  return template.render(ctx);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Templates iterate `tool_call.arguments | items`, so history arguments sent as JSON text (the
 * OpenAI wire form, including the calls this miner emitted on turn one) become mappings, as the
 * reference's `_normalize_messages` does: text read with Python's json.loads (NaN and Infinity
 * included), `""` and text that is not a JSON object become `{}`; the nested `{function: {...}}`
 * and the flat `{name, arguments}` shapes are both kept as given; arguments that are not text
 * (an object, null, a number) pass through untouched, as in the reference.
 */
export function normaliseToolCallArguments(message: unknown): unknown {
  if (!isObject(message) || !Array.isArray(message.tool_calls)) return message;
  return {
    ...message,
    tool_calls: message.tool_calls.map((c: unknown) => {
      const fn = isObject(c) ? c.function : undefined;
      const inner = isObject(fn) ? fn : c;
      const args = isObject(inner) ? inner.arguments : undefined;
      if (typeof args !== 'string') return c;
      const fixed = { ...(inner as Record<string, unknown>), arguments: argumentsObject(args) };
      return isObject(fn) ? { ...(c as Record<string, unknown>), function: fixed } : fixed;
    }),
  };
}

function argumentsObject(text: string): Record<string, unknown> {
  const parsed = pyJsonLoads(text.length > 0 ? text : '{}');
  return parsed instanceof Map ? (toJs(parsed) as Record<string, unknown>) : {};
}

/** A Python value as the template's JS value; keys such as `__proto__` stay plain data. */
function toJs(v: PyValue): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(toJs);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) Object.defineProperty(o, k, { value: toJs(x), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return 'int' in v ? Number(v.int) : v.float;
}
