import { describe, expect, it } from 'vitest';
import { computeHiddenStates } from '../../doubles/fake-sglang/model.ts';
import { CHECKPOINT_TINY, READY_LINE, startFakeSglang } from '../../doubles/fake-sglang/spawn.ts';
import { loadCheckpointSpec } from '../../doubles/fake-sglang/vocab-plan.ts';
import { readSse, type GenerateBody } from './sse.ts';
import { fakeSglangPerSuite } from '../../helpers/fake-sglang-suite.ts';

const spec = loadCheckpointSpec(CHECKPOINT_TINY);
const modelOpts = { hiddenSize: spec.hiddenSize, vocab: spec.vocab };
const prompt = (n: number, salt = 0): number[] => Array.from({ length: n }, (_, i) => spec.vocab.words[(i * 7 + salt) % spec.vocab.words.length]!);

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}

describe('fake sglang serve (stock, untrimmed)', () => {
  const fake = fakeSglangPerSuite(['--enable-return-hidden-states', '--enable-metrics', '--served-model-name', 'Qwen3.6', '--tokens-per-s', '2000']);

  it('answers /generate with text, logprobs, finish reason and the ragged hidden states', async () => {
    const ids = prompt(12, 1);
    const res = await post(`${fake.url}/generate`, {
      input_ids: ids,
      sampling_params: { temperature: 0, max_new_tokens: 6, ignore_eos: true },
      rid: 'engy-json-1',
      return_hidden_states: true,
      return_logprob: true,
    });
    expect(res.status).toBe(200);
    const out = (await res.json()) as GenerateBody;
    const meta = out.meta_info;
    expect(meta.id).toBe('engy-json-1');
    expect(meta.finish_reason).toEqual({ type: 'length', length: 6 });
    expect(meta.prompt_tokens).toBe(12);
    expect(meta.completion_tokens).toBe(6);
    expect(meta.cached_tokens).toBe(0);
    const oids = meta.output_token_logprobs!.map((e) => e[1]);
    expect(meta.output_token_logprobs!.every((e) => e.length === 3 && e[0] <= 0 && e[2] === null)).toBe(true);
    expect(out.output_ids).toEqual(oids);
    expect(typeof out.text).toBe('string');
    const hs = meta.hidden_states!;
    expect(hs).toHaveLength(6); // prefill block + 5 decode vectors
    const block = hs[0] as number[][];
    expect(block).toHaveLength(12);
    const expected = computeHiddenStates([...ids, ...oids.slice(0, -1)], modelOpts);
    expect(block.map((r) => r.length)).toEqual(Array(12).fill(2048));
    expect(block[11]).toEqual(Array.from(expected[11]!));
    for (let k = 1; k < 6; k++) expect(hs[k]).toEqual(Array.from(expected[11 + k]!));
  });

  it('tokenizes a text prompt with the checkpoint tokenizer and stops on <|im_end|>', async () => {
    const text = '<|im_start|>user\nHello there<|im_end|>\n<|im_start|>assistant\n<think>\n';
    const out = (await (await post(`${fake.url}/generate`, { text, sampling_params: { max_new_tokens: 2000 }, return_logprob: true })).json()) as GenerateBody;
    expect(out.meta_info.prompt_tokens).toBeGreaterThan(5);
    expect(out.meta_info.finish_reason).toEqual({ type: 'stop', matched: spec.vocab.imEnd });
    expect(out.output_ids.at(-1)).toBe(spec.vocab.imEnd);
    expect(out.text).toContain('</think>');
    expect(out.text).not.toContain('<|im_end|>'); // skip_special_tokens, as sglang's default
    expect(out.meta_info.hidden_states).toBeUndefined();
  });

  it('streams SSE with cumulative text, accumulated hidden states, and [DONE]', async () => {
    const ids = prompt(5, 2);
    const res = await post(`${fake.url}/generate`, { input_ids: ids, sampling_params: { max_new_tokens: 4, ignore_eos: true }, return_hidden_states: true, return_logprob: true, stream: true });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const { events, done } = await readSse(res);
    expect(done).toBe(true);
    expect(events).toHaveLength(4);
    for (let i = 0; i < 4; i++) {
      const e = events[i]!;
      expect(e.output_ids).toHaveLength(i + 1);
      expect(e.meta_info.finish_reason).toEqual(i < 3 ? null : { type: 'length', length: 4 });
      expect(events[3]!.text.startsWith(e.text)).toBe(true);
      // Stock sglang re-attaches everything accumulated so far on each event.
      expect(e.meta_info.hidden_states).toHaveLength(i + 1);
      expect((e.meta_info.hidden_states![0] as number[][]).length).toBe(5);
    }
  });

  it('reports cached tokens and the empty prefill block on a full prefix hit', async () => {
    const ids = prompt(20, 3);
    const body = { input_ids: ids, sampling_params: { max_new_tokens: 3, ignore_eos: true }, return_hidden_states: true, return_logprob: true };
    const first = (await (await post(`${fake.url}/generate`, body)).json()) as GenerateBody;
    const second = (await (await post(`${fake.url}/generate`, body)).json()) as GenerateBody;
    expect(first.meta_info.cached_tokens).toBe(0);
    expect(second.meta_info.cached_tokens).toBe(20);
    expect(second.meta_info.hidden_states![0]).toEqual([]);
    expect(second.meta_info.hidden_states!.slice(1)).toEqual(first.meta_info.hidden_states!.slice(1));
    expect(second.output_ids).toEqual(first.output_ids);
    // A longer prompt sharing the prefix: only the new tokens are prefilled.
    const longer = (await (await post(`${fake.url}/generate`, { ...body, input_ids: [...ids, ...prompt(4, 9)] })).json()) as GenerateBody;
    expect(longer.meta_info.cached_tokens).toBe(20);
    expect((longer.meta_info.hidden_states![0] as number[][]).length).toBe(4);
  });

  it('with --chunked-prefill-size, the stock prefill block holds only the last chunk', async () => {
    const chunked = startFakeSglang(['--enable-return-hidden-states', '--chunked-prefill-size', '16']);
    try {
      const curl = await chunked.ready();
      const ids = prompt(40, 5);
      const out = (await (await post(`${curl}/generate`, { input_ids: ids, sampling_params: { max_new_tokens: 2 }, return_hidden_states: true })).json()) as GenerateBody;
      const block = out.meta_info.hidden_states![0] as number[][];
      expect(block).toHaveLength(8); // 40 = 16 + 16 + 8
      expect(block[7]).toEqual(Array.from(computeHiddenStates(ids, modelOpts, 39)[0]!));
    } finally {
      await chunked.stop();
    }
  });

  it('ends a running request with finish_reason abort on /abort_request', async () => {
    const slow = startFakeSglang(['--tokens-per-s', '20']);
    try {
      const surl = await slow.ready();
      const res = await post(`${surl}/generate`, { input_ids: prompt(8), sampling_params: { max_new_tokens: 500, ignore_eos: true }, rid: 'engy-abort-me', stream: true });
      const reading = readSse(res, async (events) => {
        if (events.length === 1) await post(`${surl}/abort_request`, { rid: 'engy-abort-me' });
      });
      const { events, done } = await reading;
      expect(done).toBe(true);
      expect(events.at(-1)!.meta_info.finish_reason).toMatchObject({ type: 'abort' });
      expect(events.at(-1)!.output_ids.length).toBeLessThan(500);
      expect((await fetch(`${surl}/metrics`)).status).toBe(404); // not started with --enable-metrics
    } finally {
      await slow.stop();
    }
  });

  it('refuses hidden states on a serve started without the flag, and over-long inputs', async () => {
    const plain = startFakeSglang(['--context-length', '64']);
    try {
      const purl = await plain.ready();
      const res = await post(`${purl}/generate`, { input_ids: [1, 2], return_hidden_states: true });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/not configured to return the hidden states/);
      const long = await post(`${purl}/generate`, { input_ids: prompt(80) });
      expect(long.status).toBe(400);
      expect(((await long.json()) as { error: { message: string } }).error.message).toBe("The input (80 tokens) is longer than the model's context length (64 tokens).");
    } finally {
      await plain.stop();
    }
  });

  it('serves info routes and sglang metric names', async () => {
    const info = (await (await fetch(`${fake.url}/server_info`)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ status: 'ready', enable_return_hidden_states: true, served_model_name: 'Qwen3.6', version: '0.5.12.post1' });
    const model = (await (await fetch(`${fake.url}/model_info`)).json()) as Record<string, unknown>;
    expect(model).toMatchObject({ model_path: CHECKPOINT_TINY, is_generation: true });
    expect((await fetch(`${fake.url}/get_model_info`)).status).toBe(200);
    const tok = (await (await post(`${fake.url}/v1/tokenize`, { model: 'Qwen3.6', prompt: '<|im_start|>user\nHello<|im_end|>' })).json()) as { tokens: number[]; count: number; max_model_len: number };
    expect(tok.tokens[0]).toBe(spec.vocab.imStart);
    expect(tok.count).toBe(tok.tokens.length);
    expect(tok.max_model_len).toBe(262144);
    const detok = (await (await post(`${fake.url}/v1/detokenize`, { model: 'Qwen3.6', tokens: tok.tokens })).json()) as { text: string };
    expect(detok.text).toBe('<|im_start|>user\nHello<|im_end|>');
    const models = (await (await fetch(`${fake.url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data[0]!.id).toBe('Qwen3.6');
    const metrics = await (await fetch(`${fake.url}/metrics`)).text();
    for (const name of [
      'num_running_reqs',
      'num_queue_reqs',
      'token_usage',
      'gen_throughput',
      'cache_hit_rate',
      'generation_tokens_total',
      'time_to_first_token_seconds_bucket',
      'inter_token_latency_seconds_count',
    ]) {
      expect(metrics).toMatch(new RegExp(`^sglang:${name}\\{model_name="Qwen3.6"`, 'm'));
    }
  });

  it('queues requests beyond --max-running-requests', async () => {
    const one = startFakeSglang(['--max-running-requests', '1', '--tokens-per-s', '20', '--enable-metrics']);
    try {
      const ourl = await one.ready();
      let second: Promise<Response> | null = null;
      let sawQueue = false;
      // A long request holds the only slot; once it streams, a second one must wait in the queue.
      const first = readSse(await post(`${ourl}/generate`, { input_ids: prompt(4), sampling_params: { max_new_tokens: 400, ignore_eos: true }, rid: 'holder', stream: true }), async (events) => {
        if (events.length !== 1) return;
        second = post(`${ourl}/generate`, { input_ids: prompt(4, 1), sampling_params: { max_new_tokens: 3, ignore_eos: true } });
        for (let i = 0; i < 200 && !sawQueue; i++) {
          const m = await (await fetch(`${ourl}/metrics`)).text();
          sawQueue = /^sglang:num_queue_reqs\{[^}]*\} 1\.0$/m.test(m) && /^sglang:num_running_reqs\{[^}]*\} 1\.0$/m.test(m);
        }
        // A third request aborted while still queued ends at once and does not cost a slot.
        const third = post(`${ourl}/generate`, { input_ids: prompt(3), sampling_params: { max_new_tokens: 3 }, rid: 'queued-then-aborted' });
        for (let i = 0; i < 200; i++) {
          if (/^sglang:num_queue_reqs\{[^}]*\} 2\.0$/m.test(await (await fetch(`${ourl}/metrics`)).text())) break;
        }
        await post(`${ourl}/abort_request`, { rid: 'queued-then-aborted' });
        const t = (await (await third).json()) as GenerateBody;
        expect(t.meta_info.finish_reason).toMatchObject({ type: 'abort', message: 'Abort in waiting queue' });
        expect(t.meta_info.completion_tokens).toBe(0);
        await post(`${ourl}/abort_request`, { rid: 'holder' });
      });
      const { events } = await first;
      expect(sawQueue).toBe(true);
      expect(events.at(-1)!.meta_info.finish_reason).toMatchObject({ type: 'abort' });
      const res = await (second as unknown as Promise<Response>);
      expect(((await res.json()) as GenerateBody).meta_info.completion_tokens).toBe(3);
      const m = await (await fetch(`${ourl}/metrics`)).text();
      expect(m).toMatch(/^sglang:num_running_reqs\{[^}]*\} 0\.0$/m);
      expect(m).toMatch(/^sglang:num_queue_reqs\{[^}]*\} 0\.0$/m);
    } finally {
      await one.stop();
    }
  });

  it('prints the sglang start-up phases in order before the ready line', () => {
    const order = [
      /Load weight begin/,
      /Load weight end/,
      /KV Cache is allocated/,
      /Capture cuda graph begin/,
      /Capture cuda graph end/,
      /Uvicorn running on/,
      new RegExp(READY_LINE.replaceAll('!', '\\!')),
    ];
    const at = order.map((re) => fake.serve.lines.findIndex((l) => re.test(l)));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
  });
});
