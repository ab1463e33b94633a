// Issue 32 item 6: odd serve frames mean what they mean to the reference miner. The whole prompt
// already cached stops after the first call and answers `stop`; `stream` is read by Python
// truthiness; `max_tokens` goes through int(x or 512) (a numeric string counts, a negative asks
// for nothing, a word is the buyer's 400); a number corr_id is answered as that number; a frame
// without `request` gets a 400 (the reference's tee worker relays its serve's 400).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChunkFrame, ResponseFrame } from '../../../electron/engine/miner/frames.ts';
import type { MinerService } from '../../../electron/engine/miner/miner-service.ts';
import type { GatewayDouble } from '../../doubles/gateway/gateway-double.ts';
import { startFakeServe, startGateway, startMiner, waitFor, type FakeServe } from './harness.ts';

/** Send one raw serve frame on leg 0 and collect what the miner answers under `corrId`. */
async function raw(gw: GatewayDouble, frame: Record<string, unknown>): Promise<{ chunks: ChunkFrame[]; response: ResponseFrame }> {
  const chunks: ChunkFrame[] = [];
  const corr = JSON.stringify(frame.corr_id);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(frame).slice(0, 120)}`)), 30_000);
    gw.onFrame = (text) => {
      const f = JSON.parse(text) as { type: string; corr_id?: unknown };
      if (JSON.stringify(f.corr_id) !== corr) return;
      if (f.type === 'chunk') chunks.push(f as ChunkFrame);
      if (f.type === 'response') {
        clearTimeout(t);
        gw.onFrame = null;
        resolve({ chunks, response: f as ResponseFrame });
      }
    };
    gw.sendRaw(0, JSON.stringify({ type: 'serve', ...frame }));
  });
}

const hello = (text: string) => ({ messages: [{ role: 'user', content: text }] });

let serve: FakeServe;
let gw: GatewayDouble;
let miner: MinerService;

beforeAll(async () => {
  serve = await startFakeServe();
  gw = startGateway({ probe: false });
  await gw.start();
  miner = startMiner(gw.url, [serve.url], { chunkTokens: 4 });
  await miner.start();
  await waitFor(miner, (s) => s.phase === 'waiting-for-probe', 30_000);
}, 60_000);

afterAll(async () => {
  await miner?.stop();
  await gw?.stop();
  await serve?.stop();
});

describe('serve frame edges, as the reference reads them', () => {
  it('the whole prompt already cached: the generation stops after its first call (3 proven tokens, 1 folded into the prompt) and answers stop', { timeout: 60_000 }, async () => {
    const req = { ...hello('The whole prompt of this request is already in the radix cache.'), max_tokens: 12 };
    const first = await gw.serve(req, { stream: false, leg: 0 }).done;
    const again = await gw.serve(req, { stream: false, leg: 0 }).done;
    const u1 = first.response!.output.usage!;
    const u2 = again.response!.output.usage!;
    expect(first.response!.output.choices![0]!.finish_reason).toBe('length');
    expect(u1.completion_tokens).toBe(12);
    expect(u2.prompt_tokens).toBe(u1.prompt_tokens + 1);
    expect(u2.completion_tokens).toBe(3);
    expect(again.response!.output.choices![0]!.finish_reason).toBe('stop');
  });

  it('stream is read by Python truthiness', { timeout: 60_000 }, async () => {
    for (const [value, streams] of [
      ['yes', true],
      ['false', true],
      [1, true],
      [0, false],
      ['', false],
      [null, false],
    ] as const) {
      const r = await raw(gw, { corr_id: `s-${String(value)}`, request: { ...hello(`stream ${String(value)}`), max_tokens: 4 }, stream: value });
      expect(r.response.commitment, `stream=${JSON.stringify(value)}`).not.toBeNull();
      expect(r.chunks.length > 0, `stream=${JSON.stringify(value)}`).toBe(streams);
    }
  });

  it('max_tokens as a numeric string counts', { timeout: 60_000 }, async () => {
    const r = await raw(gw, { corr_id: 'm-str', request: { ...hello('count to ten slowly please'), max_tokens: ' 5 ' } });
    expect(r.response.output).toMatchObject({ usage: { completion_tokens: 5 }, choices: [{ finish_reason: 'length' }] });
  });

  it('a negative max_tokens asks for nothing: an empty answer, no error', { timeout: 60_000 }, async () => {
    const r = await raw(gw, { corr_id: 'm-neg', request: { ...hello('nothing at all'), max_tokens: -3 } });
    expect(r.response.error).toBeUndefined();
    expect(r.response.commitment!.toploc.n_tokens).toBe(0);
    expect(r.response.output).toMatchObject({ usage: { completion_tokens: 0 }, choices: [{ finish_reason: 'stop', message: { content: null } }] });
  });

  it("max_tokens that int() refuses is the buyer's 400", { timeout: 60_000 }, async () => {
    const r = await raw(gw, { corr_id: 'm-word', request: { ...hello('hi'), max_tokens: 'lots' } });
    expect(r.response.error).toMatchObject({ type: 'BadRequest', status: 400, message: expect.stringMatching(/max_tokens must be an integer/) as unknown });
  });

  it('a number corr_id is served and answered as the same number', { timeout: 60_000 }, async () => {
    const r = await raw(gw, { corr_id: 42, request: { ...hello('a numbered request'), max_tokens: 3 } });
    expect(r.response.corr_id).toBe(42);
    expect(r.response.commitment).not.toBeNull();
  });

  it("a frame without request is answered at once with the buyer's 400", { timeout: 60_000 }, async () => {
    const r = await raw(gw, { corr_id: 'no-request' });
    expect(r.response.error).toMatchObject({ type: 'BadRequest', status: 400 });
  });
});
