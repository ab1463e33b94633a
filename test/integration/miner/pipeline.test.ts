import { describe, expect, it } from 'vitest';
import { greedyGenerate } from '../../doubles/fake-sglang/model.ts';
import { loadCheckpointSpec } from '../../doubles/fake-sglang/vocab-plan.ts';
import type { GatewayDouble } from '../../doubles/gateway/gateway-double.ts';
import { CHECKPOINT, startFakeServe, startFakeServeWith, startMiner, until, waitFor, withReadyMiner, withServe, type FakeServe } from './harness.ts';

const ask = (text: string, max: number) => ({ messages: [{ role: 'user', content: text }], max_tokens: max });

function session(serveArgs: string[], miner: Parameters<typeof startMiner>[2], body: (gw: GatewayDouble, m: ReturnType<typeof startMiner>, serve: FakeServe) => Promise<void>): Promise<void> {
  return withServe(startFakeServe(serveArgs), (serve) => withReadyMiner([serve.url], (gw, m) => body(gw, m, serve), { miner }));
}

describe('request pipeline details', () => {
  const spec = loadCheckpointSpec(CHECKPOINT);

  it('chunked generation with one-token overlap gives the tokens and rows of one long call', { timeout: 60_000 }, async () => {
    await session([], { chunkTokens: 8 }, async (gw) => {
      let promptLength = 0;
      for (const stream of [false, true]) {
        const r = await gw.serve(ask('Think about the problem before you answer, then write the summary.', 40), { stream, leg: 4 }).done;
        const c = r.response!.commitment!;
        expect(r.audit?.verdict).toBe('pass');
        expect(r.audit?.score).toBe(0);
        // The second run hits the prefix cache in full: its first token has no row and joins prompt_ids,
        // and (as the reference counts it) that first call of 8 ends the generation (issue 32 item 6).
        promptLength ||= c.toploc.prompt_ids.length;
        const folded = c.toploc.prompt_ids.length - promptLength;
        expect(folded).toBe(stream ? 1 : 0);
        const generated = stream ? 8 : 40;
        const once = greedyGenerate(c.toploc.prompt_ids, generated - folded, { hiddenSize: spec.hiddenSize, vocab: spec.vocab });
        expect(c.output_token_ids).toEqual(once.outputIds);
        expect(c.output_token_ids.length + folded).toBe(generated);
        expect(r.response!.output.usage!.completion_tokens).toBe(generated - folded);
        if (stream) {
          const msg = r.response!.output.choices![0]!.message;
          expect(r.chunks.map((x) => x.delta.reasoning_content ?? '').join('')).toBe(msg.reasoning_content ?? '');
          expect(r.chunks.map((x) => x.delta.content ?? '').join('')).toBe(msg.content ?? '');
        }
      }
    });
  });

  it('says the serve lacks --enable-return-hidden-states instead of failing obscurely', { timeout: 60_000 }, async () => {
    await withServe(startFakeServeWith([], { hidden: false }), (bare) =>
      withReadyMiner([bare.url], async (gw, m) => {
        const r = await gw.serve(ask('Hello!', 4), { stream: false, leg: 0 }).done;
        expect(r.response?.commitment).toBeNull();
        expect(r.response?.error?.message).toMatch(/--enable-return-hidden-states/);
        await until(() => m.snapshot().stats.errors === 1, 5000, 'the error record');
        expect(m.snapshot().recent[0]?.cause).toMatch(/--enable-return-hidden-states/);
      }),
    );
  });

  it('self-audits on another engine: zero mismatch when the engines agree, a warning when one runs other numerics', { timeout: 90_000 }, async () => {
    // The audit prefills on an engine whose prefix cache does not hold the request; a serve cannot
    // catch its own quantisation by re-running itself, but a second engine catches a deviating one.
    const honestA = await startFakeServeWith([], { trim: false });
    const honestB = await startFakeServeWith([], { trim: false });
    const int4 = await startFakeServeWith(['--quantize', 'int4'], { trim: false });
    try {
      for (const [urls, honest] of [
        [[honestA.url, honestB.url], true],
        [[int4.url, honestA.url], false],
      ] as const) {
        await withReadyMiner(
          urls,
          async (gw, m) => {
            // One at a time: the least-loaded pick then always serves on the first engine.
            for (let i = 0; i < 3; i++) await gw.serve(ask(`Audit me ${i} (${honest ? 'same' : 'other'} numerics): explain the result step by step.`, 96), { stream: false, leg: i }).done;
            const s = await waitFor(m, (x) => x.audit.audited >= 1 && x.stats.inflight === 0);
            expect(s.audit.failures).toBe(0);
            if (honest) {
              expect(s.audit.maxScore).toBe(0);
              expect(s.audit.warning).toBeNull();
            } else {
              expect(s.audit.maxScore).toBeGreaterThan(0.1);
              expect(s.audit.warning).toMatch(/^self-audit: /);
              expect(s.forecast).toMatchObject({ gate: 'cheat', status: 'at-risk' });
            }
          },
          { miner: { audit: { sampleRate: 1, minIntervalMs: 0 } } },
        );
      }
    } finally {
      await Promise.all([honestA.stop(), honestB.stop(), int4.stop()]);
    }
  });
});
