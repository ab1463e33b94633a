// `engy-panel prompt render --checkpoint DIR < request.json`: what the miner would send to the
// serve for a serve request (its `messages`, `tools`, `chat_template_kwargs`): the rendered
// prompt and its token ids, as one JSON line, for operators checking their miner's input.
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PromptBuilder } from '../engine/miner/prompt-builder.ts';
import { readStdin, type CliCommand } from './types.ts';

const USAGE = `usage: engy-panel prompt render --checkpoint DIR < request.json
  request.json: a serve request, {"messages": [...], "tools": [...], "chat_template_kwargs": {...}}
  prints {"prompt": "...", "ids": [...]}
`;

/** Largest request read from stdin: a serve request of a 224k-token prompt fits well inside. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const run: CliCommand = async (args, io) => {
  let values: { checkpoint?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { checkpoint: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (e) {
    io.stderr(`engy-panel prompt: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'render') {
    io.stderr(USAGE);
    return 2;
  }
  const dir = values.checkpoint;
  if (!dir) {
    io.stderr(`engy-panel prompt: --checkpoint DIR is required (the folder with tokenizer.json and tokenizer_config.json)\n`);
    return 2;
  }
  if (!existsSync(join(dir, 'tokenizer.json'))) {
    io.stderr(`engy-panel prompt: ${join(dir, 'tokenizer.json')} does not exist; point --checkpoint at the downloaded checkpoint folder\n`);
    return 1;
  }
  const text = await readStdin(io.stdin);
  if (Buffer.byteLength(text) > MAX_INPUT_BYTES) {
    io.stderr(`engy-panel prompt: the request on stdin is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MB\n`);
    return 2;
  }
  let req: unknown;
  try {
    req = JSON.parse(text);
  } catch (e) {
    io.stderr(`engy-panel prompt: stdin is not JSON (${(e as Error).message}); give a serve request such as {"messages": [{"role": "user", "content": "Hi"}]}\n`);
    return 2;
  }
  // A whole serve frame is accepted too: its `request` is what gets rendered.
  if (isObject(req) && req.type === 'serve' && isObject(req.request)) req = req.request;
  if (!isObject(req) || !Array.isArray(req.messages)) {
    io.stderr('engy-panel prompt: the request needs a "messages" array\n');
    return 2;
  }
  let builder: PromptBuilder;
  try {
    builder = await PromptBuilder.load(dir);
  } catch (e) {
    io.stderr(`engy-panel prompt: cannot load the checkpoint's template and tokenizer: ${(e as Error).message}\n`);
    return 1;
  }
  try {
    const built = await builder.build({ messages: req.messages, tools: req.tools, chat_template_kwargs: req.chat_template_kwargs });
    io.stdout(`${JSON.stringify({ prompt: built.text, ids: built.ids })}\n`);
    return 0;
  } catch (e) {
    // The template's own raise_exception (no user message, a bad role...) is the buyer's error, as the miner reports it.
    io.stderr(`engy-panel prompt: the chat template refused the request: ${(e as Error).message}\n`);
    return 1;
  } finally {
    builder.close();
  }
};
