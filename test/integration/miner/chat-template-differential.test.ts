// Issue 17 item 5: the checkpoint's own Qwen3.6 chat template rendered by the miner (the same
// function PromptBuilder uses) and by Python jinja2 set up as transformers sets it up
// (test/helpers/render_chat_template.py), over generated buyer-shaped requests: every prompt
// byte-identical, and every template error an error on both sides.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { renderChatTemplate, type ChatRequest } from '../../../electron/engine/miner/prompt-builder.ts';
import { sharedVectorPath } from '../../helpers/shared-vectors.ts';
import { xorshiftRandom } from '../../helpers/xorshift.ts';
import { ROOT } from './harness.ts';

const TEMPLATE = sharedVectorPath('qwen3.6', 'chat_template.jinja');
const HELPER = join(ROOT, 'test', 'helpers', 'render_chat_template.py');

function pythonWithJinja(): string {
  for (const py of ['python3', '/usr/bin/python3']) {
    const r = spawnSync(py, ['-c', 'import jinja2'], { encoding: 'utf8' });
    if (r.status === 0) return py;
  }
  throw new Error('no python3 with jinja2 (install Debian python3-jinja2; .ci/run does)');
}

const SPECIALS = { eos_token: '<|im_end|>', pad_token: '<|endoftext|>' };

const TEXTS = [
  'Hello!',
  'What is 2+2?',
  'Écris un poème sur la mer.',
  '用中文回答：天空为什么是蓝色的？',
  'emoji 🚀🔥 and 👩‍👩‍👧 family',
  'quotes "double" and \'single\'',
  'back\\slash \\n not a newline',
  'line one\nline two\n\nline four',
  '\ttabbed\ttext\t',
  '  padded with spaces  ',
  '{{ not a template }} {% raw %}',
  '<tool_call> written by the user </tool_call>',
  'ends with think </think> inside',
  '<think>user think tag</think>',
  'control \u0001\u001f chars',
  'zero\u200bwidth and \u00a0nbsp',
  'json-ish {"a": [1, 2]}',
  'surrogate-free 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'tool_response look-alike',
  '',
];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function argValue(r: () => number): unknown {
  const kind = Math.floor(r() * 9);
  switch (kind) {
    case 0:
      return pick(r, TEXTS);
    case 1:
      return Math.floor(r() * 2000) - 1000;
    case 2:
      return Math.round(r() * 1e6) / 1e3 + 0.5; // a fraction: see the note on integral floats in docs/miner-conformance.md
    case 3:
      return r() < 0.5;
    case 4:
      return null;
    case 5:
      return [pick(r, TEXTS), Math.floor(r() * 9), r() < 0.5];
    case 6:
      return { city: pick(r, TEXTS), days: Math.floor(r() * 9), nested: { ok: r() < 0.5, list: [1, 'two'] } };
    case 7:
      return [];
    default:
      return {};
  }
}

function tool(r: () => number, i: number): unknown {
  const props: Record<string, unknown> = {};
  for (let k = 0; k < 1 + Math.floor(r() * 4); k++) props[`p${k}`] = { type: pick(r, ['string', 'integer', 'number', 'boolean', 'object', 'array']), description: pick(r, TEXTS) };
  return { type: 'function', function: { name: `tool_${i}`, description: pick(r, TEXTS), parameters: { type: 'object', properties: props, required: Object.keys(props).slice(0, 1) } } };
}

function content(r: () => number): unknown {
  if (r() < 0.2) return Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({ type: 'text', text: pick(r, TEXTS) }));
  return pick(r, TEXTS) + (r() < 0.5 ? ` ${pick(r, TEXTS)}` : '');
}

function toolCalls(r: () => number, names: string[]): unknown[] {
  return Array.from({ length: 1 + Math.floor(r() * 3) }, () => {
    const args: Record<string, unknown> = {};
    for (let k = 0; k < Math.floor(r() * 5); k++) args[`a${k}`] = argValue(r);
    const name = names.length > 0 ? pick(r, names) : 'lookup';
    // OpenAI clients send arguments as JSON text; some send objects; a few send flat calls.
    const shape = r();
    if (shape < 0.5) return { id: `call_${Math.floor(r() * 1e6)}`, type: 'function', function: { name, arguments: JSON.stringify(args) } };
    if (shape < 0.9) return { type: 'function', function: { name, arguments: args } };
    return { name, arguments: JSON.stringify(args) };
  });
}

function request(r: () => number, i: number): ChatRequest {
  const tools = r() < 0.5 ? Array.from({ length: 1 + Math.floor(r() * 3) }, (_, k) => tool(r, k)) : [];
  const names = tools.map((t) => (t as { function: { name: string } }).function.name);
  const messages: unknown[] = [];
  if (r() < 0.4) messages.push({ role: 'system', content: content(r) });
  const turns = 1 + Math.floor(r() * 4);
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'user', content: content(r) });
    if (t === turns - 1 && r() < 0.7) break;
    const a: Record<string, unknown> = { role: 'assistant', content: pick(r, TEXTS) };
    const style = r();
    if (style < 0.3) a.reasoning_content = pick(r, TEXTS);
    else if (style < 0.5) a.content = `<think>\n${pick(r, TEXTS)}\n</think>\n\n${pick(r, TEXTS)}`;
    if (r() < 0.5) {
      a.tool_calls = toolCalls(r, names);
      if (r() < 0.4) a.content = '';
      messages.push(a);
      for (let k = 0; k < 1 + Math.floor(r() * 2); k++) messages.push({ role: 'tool', content: pick(r, [pick(r, TEXTS), JSON.stringify({ result: argValue(r) })]) });
      if (r() < 0.5) messages.push({ role: 'assistant', content: pick(r, TEXTS), ...(r() < 0.5 ? { reasoning_content: pick(r, TEXTS) } : {}) });
    } else messages.push(a);
  }
  const kwargs: Record<string, unknown> = {};
  if (r() < 0.6) kwargs.enable_thinking = r() < 0.5;
  if (r() < 0.5) kwargs.preserve_thinking = r() < 0.6;
  // A few requests the template must refuse, identically on both sides.
  if (i % 50 === 7) messages.push({ role: 'system', content: 'late system message' });
  if (i % 50 === 13) messages.splice(0, messages.length, { role: 'assistant', content: 'no user at all' });
  if (i % 50 === 21) messages.push({ role: 'developer', content: 'unknown role' });
  return { messages, ...(tools.length > 0 || r() < 0.1 ? { tools } : {}), ...(Object.keys(kwargs).length > 0 ? { chat_template_kwargs: kwargs } : {}) };
}

describe('Qwen3.6 chat template: miner vs transformers-style jinja2', () => {
  it('renders 240 generated requests byte for byte alike', { timeout: 120_000 }, () => {
    if (!existsSync(TEMPLATE)) throw new Error(`the shared vectors have no Qwen3.6 chat template: ${TEMPLATE} is missing`);
    const source = readFileSync(TEMPLATE, 'utf8');
    const r = xorshiftRandom(0x5eed17);
    const requests = Array.from({ length: 240 }, (_, i) => request(r, i));
    const py = spawnSync(pythonWithJinja(), [HELPER], { input: JSON.stringify({ template: source, specials: SPECIALS, requests }), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    expect(py.status, py.stderr).toBe(0);
    const results = (JSON.parse(py.stdout) as { results: ({ prompt: string } | { error: string })[] }).results;
    expect(results).toHaveLength(requests.length);
    const template = new Template(source);
    let rendered = 0;
    let refused = 0;
    for (const [i, req] of requests.entries()) {
      const want = results[i]!;
      let got: { prompt: string } | { error: string };
      try {
        got = { prompt: renderChatTemplate(template, SPECIALS, req) };
      } catch (e) {
        got = { error: (e as Error).message };
      }
      if ('prompt' in want) {
        expect(got, `request ${i}: ${JSON.stringify(req).slice(0, 400)}`).toEqual(want);
        rendered += 1;
      } else {
        expect('error' in got, `request ${i} should fail like jinja2 (${want.error})`).toBe(true);
        refused += 1;
      }
    }
    expect(rendered).toBeGreaterThanOrEqual(200);
    expect(refused).toBeGreaterThanOrEqual(6);
  });
});
