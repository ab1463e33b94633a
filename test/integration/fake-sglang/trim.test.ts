import { describe, expect, it } from 'vitest';
import { parseTrimLogLine, trimModuleDir } from '../../../electron/engine/serve/trim-module.ts';
import { startFakeSglang } from '../../doubles/fake-sglang/spawn.ts';
import { loadCheckpointSpec } from '../../doubles/fake-sglang/vocab-plan.ts';
import { CHECKPOINT_TINY } from '../../doubles/fake-sglang/spawn.ts';
import { readSse, type GenerateBody } from './sse.ts';

const words = loadCheckpointSpec(CHECKPOINT_TINY).vocab.words;
const longPrompt = Array.from({ length: 1500 }, (_, i) => words[(i * 13) % words.length]!);

async function generate(url: string, body: Record<string, unknown>): Promise<{ text: string; bytes: number }> {
  const res = await fetch(`${url}/generate`, { method: 'POST', body: JSON.stringify(body) });
  const text = await res.text();
  return { text, bytes: Buffer.byteLength(text) };
}

describe('--trim-hidden-states (the engy_trim module, as the fake serve mimics it)', () => {
  const body = { input_ids: longPrompt, sampling_params: { max_new_tokens: 4, ignore_eos: true }, return_hidden_states: true, return_logprob: true };

  it('prints the armed line the app detects, and a long prompt costs kilobytes instead of megabytes', async () => {
    const stock = startFakeSglang(['--enable-return-hidden-states']);
    const trimmed = startFakeSglang(['--enable-return-hidden-states', '--trim-hidden-states']);
    try {
      const [surl, turl] = await Promise.all([stock.ready(), trimmed.ready()]);
      const status = trimmed.lines.map(parseTrimLogLine).find((x) => x !== null);
      expect(status).toEqual({ armed: true, sglangVersion: '0.5.12.post1' });
      expect(stock.lines.map(parseTrimLogLine).some((x) => x !== null)).toBe(false);

      const full = await generate(surl, body);
      const trim = await generate(turl, body);
      expect(full.bytes).toBeGreaterThan(10_000_000);
      expect(trim.bytes).toBeLessThan(200_000);
      const f = JSON.parse(full.text) as GenerateBody;
      const t = JSON.parse(trim.text) as GenerateBody;
      const fh = f.meta_info.hidden_states!;
      const th = t.meta_info.hidden_states!;
      expect((fh[0] as number[][]).length).toBe(1500);
      expect((th[0] as number[][]).length).toBe(1);
      // What the proof uses is identical: the prefill block's last row and every decode vector.
      expect(th[0]![0]).toEqual((fh[0] as number[][])[1499]);
      expect(th.slice(1)).toEqual(fh.slice(1));
      expect(t.output_ids).toEqual(f.output_ids);
    } finally {
      await Promise.all([stock.stop(), trimmed.stop()]);
    }
  });

  it('when streaming, hidden states ride only the finishing event', async () => {
    const trimmed = startFakeSglang(['--enable-return-hidden-states', '--trim-hidden-states']);
    try {
      const url = await trimmed.ready();
      const res = await fetch(`${url}/generate`, { method: 'POST', body: JSON.stringify({ ...body, input_ids: longPrompt.slice(0, 50), stream: true }) });
      const { events } = await readSse(res);
      expect(events).toHaveLength(4);
      expect(events.slice(0, 3).map((e) => e.meta_info.hidden_states)).toEqual([[], [], []]);
      const last = events[3]!.meta_info.hidden_states!;
      expect(last).toHaveLength(4);
      expect((last[0] as number[][]).length).toBe(1);
    } finally {
      await trimmed.stop();
    }
  });

  it('stays inert (and untrimmed) on an sglang version outside the supported list', async () => {
    const serve = startFakeSglang(['--enable-return-hidden-states', '--trim-hidden-states', '--sglang-version', '0.5.15.post1']);
    try {
      const url = await serve.ready();
      const status = serve.lines.map(parseTrimLogLine).find((x) => x !== null);
      expect(status).toMatchObject({ armed: false, sglangVersion: '0.5.15.post1' });
      expect(status?.reason).toMatch(/not in the supported list/);
      const out = JSON.parse((await generate(url, { ...body, input_ids: longPrompt.slice(0, 30) })).text) as GenerateBody;
      expect((out.meta_info.hidden_states![0] as number[][]).length).toBe(30);
    } finally {
      await serve.stop();
    }
  });

  it('arms from PYTHONPATH like the real module, and ENGY_TRIM_DISABLE keeps it inert', async () => {
    const armed = startFakeSglang(['--enable-return-hidden-states'], { env: { ...process.env, PYTHONPATH: trimModuleDir() } });
    const disabled = startFakeSglang(['--enable-return-hidden-states'], { env: { ...process.env, PYTHONPATH: trimModuleDir(), ENGY_TRIM_DISABLE: '1' } });
    try {
      await Promise.all([armed.ready(), disabled.ready()]);
      expect(armed.lines.map(parseTrimLogLine).find((x) => x !== null)).toEqual({ armed: true, sglangVersion: '0.5.12.post1' });
      expect(disabled.lines.map(parseTrimLogLine).find((x) => x !== null)).toEqual({ armed: false, sglangVersion: '0.5.12.post1', reason: 'disabled by ENGY_TRIM_DISABLE' });
      const out = JSON.parse((await generate(await armed.url(), { ...body, input_ids: longPrompt.slice(0, 30) })).text) as GenerateBody;
      expect((out.meta_info.hidden_states![0] as number[][]).length).toBe(1);
    } finally {
      await Promise.all([armed.stop(), disabled.stop()]);
    }
  });
});
