// A serve (or provider) that answers with an endless or oversized body must not make the engine buffer it.
import { describe, expect, it } from 'vitest';
import { readBodyCapped, type FetchFn } from '../../../electron/engine/lib/fetch.ts';
import { getJsonFirst, getText } from '../../../electron/engine/serve/http.ts';

/** A body of `chunks` chunks of `size` bytes each, counting how many were pulled before the reader gave up. */
function streamed(chunks: number, size: number, headers: Record<string, string> = {}): { res: Response; pulled: () => number } {
  let n = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (n >= chunks) return c.close();
      n += 1;
      c.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
  return { res: new Response(body, { headers }), pulled: () => n };
}

describe('capped bodies', () => {
  it('reads a body under the cap whole, and an empty one as empty', async () => {
    expect((await readBodyCapped(new Response('hello'), 5))?.toString()).toBe('hello');
    expect((await readBodyCapped(new Response(null), 5))?.byteLength).toBe(0);
  });

  it('gives up on an endless body soon after the cap instead of reading it all', async () => {
    const s = streamed(1_000_000, 64 * 1024);
    expect(await readBodyCapped(s.res, 1024 * 1024)).toBeNull();
    expect(s.pulled()).toBeLessThan(40);
  });

  it('refuses a declared length over the cap before reading a byte of it', async () => {
    const s = streamed(10, 1, { 'content-length': String(10 * 1024 * 1024) });
    expect(await readBodyCapped(s.res, 1024)).toBeNull();
    expect(s.pulled()).toBeLessThanOrEqual(1);
  });

  it('makes a serve probe over the cap read as a failed probe, not a huge string', async () => {
    const huge: FetchFn = async () => streamed(1_000_000, 64 * 1024).res;
    expect(await getText(huge, 'http://serve/metrics', 5_000, 1024 * 1024)).toEqual({ status: 0, body: '' });
    const small: FetchFn = async () => new Response('sglang:num_running_reqs 1\n', { status: 200 });
    expect(await getText(small, 'http://serve/metrics', 5_000)).toEqual({ status: 200, body: 'sglang:num_running_reqs 1\n' });
    const failing: FetchFn = async () => {
      throw new Error('ECONNREFUSED');
    };
    expect(await getText(failing, 'http://serve/metrics', 5_000)).toEqual({ status: 0, body: '' });
  });

  it('reads server info only when it is a JSON object, trying the older route next', async () => {
    const answers: Record<string, Response> = {
      'http://s/server_info': new Response('[1, 2]', { status: 200 }),
      'http://s/get_server_info': new Response('{"version": "0.5.12", "__proto__": {"polluted": true}}', { status: 200 }),
    };
    const f: FetchFn = async (url) => answers[url] ?? new Response('', { status: 404 });
    const info = await getJsonFirst(f, 'http://s', ['/server_info', '/get_server_info'], 5_000);
    expect(info?.version).toBe('0.5.12');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await getJsonFirst(async () => new Response('not json', { status: 200 }), 'http://s', ['/server_info'], 5_000)).toBeNull();
  });
});
