// PROTOCOL 4.1: the checkpoint's own chat template (Jinja) over the messages as sent, then its
// own tokenizer. The token ids go into the proof, so this must match what the auditor renders.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { AsciiBpe } from './ascii-bpe.ts';
import { loadAsciiBpe } from './ascii-bpe-off-thread.ts';
import { EncodeBatcher } from './encode-batcher.ts';
import { NativeTokenizerThread } from './native-tokenizer-thread.ts';
import { QuietGather } from './quiet-gather.ts';
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

/** A prompt whose ids may be the fast encoder's guess, sent before the native tokenizer has answered. */
export interface EarlyPrompt extends BuiltPrompt {
  /**
   * Set when `ids` are the fast encoder's guess (ascii-bpe.ts): the native tokenizer's ids, the
   * only ones a proof may carry. Nothing may reach the buyer before they are in and equal to `ids`;
   * a request sent with a guess they differ from must be sent again with them. It is never left
   * to reject unobserved (a failed encode is a rejection the caller meets when it awaits it).
   */
  confirmed: Promise<number[]> | null;
}

/**
 * Prompts longer than this wait for the native tokenizer: the fast encoder's time on the miner's
 * thread grows with the text (4,096 characters of random punctuation take about 4 ms here).
 */
export const EARLY_MAX_CHARS = 4096;

/**
 * Guessing time allowed per turn of the event loop: a burst of long prompts (or a buyer's 4,096
 * characters of random punctuation, 64 at a time) would otherwise hold the miner's thread for tens of
 * milliseconds. Past it, the turn's other prompts wait for the tokenizer's pool as before.
 */
export const GUESS_BUDGET_MS_PER_TURN = 2;

/**
 * A guessed prompt's confirmation goes to the tokenizer once the burst it came in has stopped
 * arriving for this long, or this long after the first one waiting (quiet-gather.ts says why). A
 * lone request's is asked 2 ms late; a burst's land well before its first tokens (a serve's TTFT
 * under a burst is tens of milliseconds), and the first text waits for them only if they do not.
 */
export const CONFIRM_QUIET_MS = 2;
export const CONFIRM_MAX_MS = 10;

export interface PromptBuilderOptions {
  /** The thread's clock for the guessing budget (performance.now by default). */
  now?: () => number;
  /** Runs `fn` at the next turn of the loop (setImmediate by default): the budget starts afresh there. */
  nextTurn?: (fn: () => void) => void;
  /** When guessed prompts' confirmations go (CONFIRM_QUIET_MS / CONFIRM_MAX_MS on the thread's clock by default). */
  confirmGather?: QuietGather;
}

/** Texts the fast encoder must encode as the native tokenizer does before it is used at all. */
const PROBE_TEXTS = [
  "Hello, world! It's 3.14159 o'clock; we'LL see.  Don't   stop\n\n\tnow?\r\n",
  'def f(x):\n    return {"a": [1, 2, 3], \'b\': x ** 2}  # comment\n\n\n',
  '<think>\n\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
  '!!!???...---___   \n \n\x01\x7f~`@#$%^&*()[]{}<>|\\/ 1234567890 ABCdefGHI',
];

interface TokenizerConfig {
  chat_template?: string | { name: string; template: string }[];
  bos_token?: string | { content: string } | null;
  eos_token?: string | { content: string } | null;
  pad_token?: string | { content: string } | null;
  unk_token?: string | { content: string } | null;
}

export class PromptBuilder {
  private readonly template: Template;
  private readonly tokenizer: NativeTokenizerThread;
  private readonly specials: Record<string, string>;
  private readonly encoder: EncodeBatcher;
  /** Guessed prompts' confirmations: gathered until a burst has arrived, apart from prompts that wait for their ids. */
  private readonly confirmer: EncodeBatcher;
  private fast: AsciiBpe | null = null;
  /** Why the fast encoder is not in use (null while it is). */
  private fastOff: string | null = 'not loaded';
  private readonly now: () => number;
  private readonly nextTurn: (fn: () => void) => void;
  /** Guessing time spent in this turn of the loop (GUESS_BUDGET_MS_PER_TURN), and whether its reset is due. */
  private spentMs = 0;
  private resetDue = false;

  private constructor(template: Template, tokenizer: NativeTokenizerThread, specials: Record<string, string>, o: PromptBuilderOptions) {
    this.template = template;
    this.tokenizer = tokenizer;
    this.specials = specials;
    this.encoder = new EncodeBatcher(tokenizer);
    const gather = o.confirmGather ?? new QuietGather(CONFIRM_QUIET_MS, CONFIRM_MAX_MS);
    this.confirmer = new EncodeBatcher(tokenizer, gather.defer, gather.more);
    this.now = o.now ?? (() => performance.now());
    this.nextTurn = o.nextTurn ?? ((fn) => void setImmediate(fn));
  }

  static async load(checkpointDir: string, o: PromptBuilderOptions = {}): Promise<PromptBuilder> {
    const cfg = JSON.parse(await readFile(join(checkpointDir, 'tokenizer_config.json'), 'utf8')) as TokenizerConfig;
    let source = cfg.chat_template;
    if (source === undefined) {
      // Newer checkpoints keep the template in its own file.
      source = await readFile(join(checkpointDir, 'chat_template.jinja'), 'utf8').catch(() => undefined);
    }
    if (Array.isArray(source)) source = source.find((t) => t.name === 'default')?.template ?? source[0]?.template;
    if (typeof source !== 'string') throw new Error(`the checkpoint at ${checkpointDir} has no chat template (tokenizer_config.json chat_template)`);
    const template = new Template(source);
    const tokenizerJson = join(checkpointDir, 'tokenizer.json');
    // Both off the engine's thread, side by side: the fast encoder's compile never rejects (a failure only
    // means no guessing), and the binding's own load is synchronous (native-tokenizer-thread.ts).
    const fastLoading = loadAsciiBpe(tokenizerJson);
    const tokenizer = await NativeTokenizerThread.open(tokenizerJson);
    const specials: Record<string, string> = {};
    for (const k of ['bos_token', 'eos_token', 'pad_token', 'unk_token'] as const) {
      const v = cfg[k];
      const s = typeof v === 'string' ? v : v && typeof v === 'object' ? v.content : undefined;
      if (s !== undefined) specials[k] = s;
    }
    const builder = new PromptBuilder(template, tokenizer, specials, o);
    try {
      await builder.loadFast(fastLoading);
    } catch (e) {
      builder.close();
      throw e;
    }
    return builder;
  }

  /** The fast encoder for this tokenizer.json, used only if it follows it and agrees on every probe. */
  private async loadFast(loading: ReturnType<typeof loadAsciiBpe>): Promise<void> {
    const fast = await loading;
    if (!(fast instanceof AsciiBpe)) {
      this.fastOff = `the tokenizer is not one it follows (${fast.unsupported})`;
      return;
    }
    const probes = [...PROBE_TEXTS];
    try {
      probes.push(this.render({ messages: [{ role: 'user', content: PROBE_TEXTS[0] }] }));
    } catch {
      // A template that wants more than one user message: the fixed probes still stand.
    }
    for (const [i, text] of probes.entries()) {
      // A text it leaves to the tokenizer (not ASCII: a template with such text in it guesses nothing) proves nothing.
      const guess = fast.encode(text);
      if (guess === null) continue;
      if (!sameIds(guess, await this.encoder.encode(text))) {
        this.fastOff = `it disagreed with the tokenizer on probe ${i + 1}`;
        return;
      }
    }
    this.fast = fast;
    this.fastOff = null;
  }

  /** Why prompts wait for the native tokenizer (null: ASCII prompts get their ids at once). */
  get fastEncoderOff(): string | null {
    return this.fastOff;
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

  /**
   * As build, but a short ASCII prompt's ids come at once from the fast encoder, `confirmed` by the
   * native tokenizer later (EarlyPrompt says what the caller owes). The first disagreement turns the
   * fast encoder off for good: one wrong guess is reason enough to trust only the tokenizer.
   */
  async buildEarly(request: ChatRequest): Promise<EarlyPrompt> {
    const text = this.render(request);
    const fast = this.fast;
    const guess = fast !== null && text.length <= EARLY_MAX_CHARS && this.guessBudgetLeft() ? this.timedGuess(fast, text) : null;
    const startsInReasoning = text.trimEnd().endsWith('<think>');
    if (guess === null) return { text, ids: await this.encoder.encode(text), startsInReasoning, confirmed: null };
    const confirmed = this.confirmer.encode(text).then((ids) => {
      if (!sameIds(ids, guess) && this.fast === fast) {
        this.fast = null;
        this.fastOff = 'it disagreed with the tokenizer on a prompt';
      }
      return ids;
    });
    confirmed.catch(() => undefined);
    return { text, ids: guess, startsInReasoning, confirmed };
  }

  private guessBudgetLeft(): boolean {
    if (!this.resetDue) {
      this.resetDue = true;
      this.nextTurn(() => {
        this.spentMs = 0;
        this.resetDue = false;
      });
    }
    return this.spentMs < GUESS_BUDGET_MS_PER_TURN;
  }

  private timedGuess(fast: AsciiBpe, text: string): number[] | null {
    const t0 = this.now();
    try {
      return fast.encode(text);
    } finally {
      this.spentMs += this.now() - t0;
    }
  }

  /** Prompts waiting for their batch to go and prompts being tokenized, for tests and diagnostics. */
  get queue(): { queued: number; encoding: number } {
    const a = this.encoder.pending;
    const b = this.confirmer.pending;
    return { queued: a.queued + b.queued, encoding: a.encoding + b.encoding };
  }

  decode(ids: number[]): Promise<string> {
    return this.tokenizer.decode(ids, true);
  }

  /** Stops the tokenizer's thread (mining stopped): what still waits on it fails, and its memory goes back. */
  close(): void {
    this.tokenizer.close();
  }
}

/** The same ids in the same order; a missing guess (null) is never the same. */
export function sameIds(a: readonly number[] | null, b: readonly number[]): boolean {
  if (a === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
