// Every key of every frame the miner sends, against PROTOCOL sections 3 and 4, on real frames
// recorded by the gateway double.
import { Tokenizer } from 'tokenizers';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayDouble } from '../../doubles/gateway/gateway-double.ts';
import { CHECKPOINT, startFakeServe, startGateway, startMiner, until, waitFor, type FakeServe } from './harness.ts';

type Obj = Record<string, unknown>;
const keys = (o: unknown) => Object.keys(o as Obj).sort();
const sorted = (k: string[]) => [...k].sort();

describe('frames on the wire', () => {
  let serve: FakeServe;
  let gw: GatewayDouble;
  let m: ReturnType<typeof startMiner>;
  beforeAll(async () => {
    serve = await startFakeServe();
    gw = startGateway({ probe: false, recordFrames: true });
    await gw.start();
    m = startMiner(gw.url, [serve.url]);
    await m.start();
    await waitFor(m, (s) => s.phase === 'waiting-for-probe');
  });
  afterAll(async () => {
    await m.stop();
    await gw.stop();
    await serve.stop();
  });

  const sent = (type: string) => gw.frames.filter((f) => (f as Obj).type === type) as Obj[];

  it('hello carries every PROTOCOL 3 field, the key only in miner_key', () => {
    const hellos = sent('hello');
    expect(hellos).toHaveLength(8);
    for (const h of hellos) {
      expect(keys(h)).toEqual(sorted(['type', 'miner_key', 'model', 'model_root', 'hw', 'versions', 'capacity', 'worker_name', 'instance_id', 'worker_id']));
      expect(keys(h.hw)).toEqual(sorted(['host', 'cpus', 'ram_gb', 'gpu', 'gpu_count', 'gpu_mem_gb', 'gpus', 'parallelism']));
      expect(h.capacity).toEqual({ max_inflight: 3, max_inflight_total: 24, max_input_tokens: 229376, max_output_tokens: 32768, max_request_s: 1800 });
      expect(h.instance_id).toBe(h.worker_name);
      expect(h.worker_id).toMatch(/^[0-9a-f]{32}$/);
      expect(h.model_root).toMatch(/^[0-9a-f]{64}$/);
      expect(h.model).toBe('qwen3.6-35b-a3b');
    }
    expect(new Set(hellos.map((h) => h.worker_id)).size).toBe(1);
  });

  it('answers a ping with a heartbeat', async () => {
    const before = gw.heartbeats(5);
    gw.ping(5);
    await until(() => gw.heartbeats(5) > before, 5000, 'a heartbeat');
    const hb = sent('heartbeat').at(-1)!;
    expect(keys(hb)).toEqual(sorted(['type', 'inflight', 'idle_seconds', 'capacity']));
    expect(keys(hb.capacity)).toEqual(sorted(['max_inflight', 'max_inflight_total', 'max_input_tokens', 'max_output_tokens', 'max_request_s']));
  });

  it('streams chunks, then one response with the commitment and output exactly as PROTOCOL 4', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const { corrId, done } = gw.serve(
      { messages: [{ role: 'user', content: 'What is the weather in Paris?' }], max_tokens: 12, engy_request_id: 'req-42', tools, chat_template_kwargs: { enable_thinking: false } },
      { stream: true, leg: 1 },
    );
    const r = await done;
    expect(r.chunks.length).toBeGreaterThan(0);
    for (const c of r.chunks) {
      expect(keys(c)).toEqual(['corr_id', 'delta', 'type']);
      expect(c.corr_id).toBe(corrId);
      for (const k of keys(c.delta)) expect(['content', 'reasoning_content', 'tool_calls']).toContain(k);
    }
    const res = r.response as unknown as Obj;
    expect(keys(res)).toEqual(sorted(['type', 'corr_id', 'request_id', 'commitment', 'output']));
    expect(res.request_id).toBe('req-42');
    const c = res.commitment as Obj;
    expect(keys(c)).toEqual(sorted(['model_root', 'output_token_ids', 'toploc']));
    const t = c.toploc as Obj;
    expect(keys(t)).toEqual(sorted(['proofs', 'topk', 'decode_batching_size', 'skip_prefill', 'n_tokens', 'prompt_ids']));
    expect({ topk: t.topk, decode_batching_size: t.decode_batching_size, skip_prefill: t.skip_prefill }).toEqual({ topk: 128, decode_batching_size: 32, skip_prefill: true });
    expect(t.n_tokens).toBe((c.output_token_ids as number[]).length);
    for (const p of t.proofs as string[]) expect(p).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const out = res.output as Obj;
    expect(keys(out)).toEqual(['choices', 'usage']);
    const choice = (out.choices as Obj[])[0]!;
    expect(keys(choice)).toEqual(['finish_reason', 'index', 'message']);
    expect(choice.index).toBe(0);
    // 12 tokens spent: the budget outranks everything.
    expect(choice.finish_reason).toBe('length');
    const msg = choice.message as Obj;
    for (const k of keys(msg)) expect(['role', 'content', 'reasoning_content', 'tool_calls']).toContain(k);
    expect(msg.role).toBe('assistant');
    const usage = out.usage as Obj;
    expect(usage.completion_tokens).toBe(t.n_tokens);
    expect(usage.prompt_tokens).toBe((t.prompt_ids as number[]).length);
    expect(usage.total_tokens).toBe((usage.prompt_tokens as number) + (usage.completion_tokens as number));
    expect(r.audit?.verdict).toBe('pass');
    // tools and chat_template_kwargs went through the checkpoint's template.
    const tok = Tokenizer.fromFile(join(CHECKPOINT, 'tokenizer.json'));
    const prompt = await tok.decode(t.prompt_ids as number[], false);
    expect(prompt).toContain('"name": "get_weather"');
    expect(prompt.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
  });

  it('reports cached tokens only when non-zero and never above the prompt', async () => {
    const req = { messages: [{ role: 'user', content: 'The quick brown fox jumps over the lazy dog, twice.' }], max_tokens: 4 };
    await gw.serve(req, { stream: false, leg: 2 }).done;
    const again = await gw.serve(req, { stream: false, leg: 2 }).done;
    const usage = again.response!.output.usage!;
    expect(keys(usage)).toEqual(sorted(['prompt_tokens', 'completion_tokens', 'total_tokens', 'prompt_tokens_details']));
    expect(usage.prompt_tokens_details!.cached_tokens).toBeGreaterThan(0);
    expect(usage.prompt_tokens_details!.cached_tokens).toBeLessThanOrEqual(usage.prompt_tokens);
  });

  it("answers a failure with commitment null and a short structured error; a malformed request is the buyer's 400", async () => {
    const r = await gw.serve({ messages: [{ role: 'user' }], max_tokens: 4, engy_request_id: 'req-bad' }, { stream: false, leg: 0 }).done;
    const res = r.response as unknown as Obj;
    expect(keys(res)).toEqual(sorted(['type', 'corr_id', 'request_id', 'commitment', 'output', 'error']));
    expect(res.commitment).toBeNull();
    expect(res.request_id).toBe('req-bad');
    const err = res.error as Obj;
    expect(keys(err)).toEqual(sorted(['message', 'type', 'status']));
    expect(typeof err.message).toBe('string');
    expect((err.message as string).length).toBeLessThanOrEqual(300);
    expect(err).toMatchObject({ type: 'BadRequest', status: 400 });
  });
});
