// A serve that closes an idle kept-alive connection races the miner's next request on it: the request dies with
// a reset before any answer. On Node's client path (the one `https:` serves take; tested here over http) the
// miner retries exactly once on a fresh socket, and only in that case. `http:` serves are read over
// serve-socket.ts, one connection per call, where the race cannot happen (serve-socket.test.ts).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createServeAgents, destroyServeAgents, postGenerateViaAgent, type ServeAgents } from '../../../electron/engine/miner/serve-http.ts';

type Policy = (connection: number, requestOnConnection: number) => 'answer' | 'reset';

async function serve(policy: Policy): Promise<{ url: string; seen: () => number; close: () => Promise<void> }> {
  const perSocket = new WeakMap<Socket, { connection: number; requests: number }>();
  let connections = 0;
  let seen = 0;
  const server = http.createServer((req, res) => {
    const sock = req.socket;
    const st = perSocket.get(sock) ?? { connection: ++connections, requests: 0 };
    perSocket.set(sock, st);
    st.requests += 1;
    seen += 1;
    req.resume();
    req.on('end', () => {
      if (policy(st.connection, st.requests) === 'reset') sock.destroy();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"ok"}');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen: () => seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let agents: ServeAgents | null = null;
let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  if (agents) destroyServeAgents(agents);
  agents = null;
  for (const c of closers) await c();
  closers = [];
});

async function generate(url: string): Promise<string> {
  agents ??= createServeAgents();
  const parts: Buffer[] = [];
  await postGenerateViaAgent(new URL('/generate', url), Buffer.from('{"rid":"r"}'), agents.generate, (c) => void parts.push(c), { timeoutMs: 5_000 });
  return Buffer.concat(parts).toString('utf8');
}

describe("Node's client path on kept-alive sockets", () => {
  it('retries once on a fresh socket when a reused one is reset before any answer', async () => {
    // Connection 1 answers its first request and resets the second (the idle-close race); later connections answer.
    const s = await serve((conn, n) => (conn === 1 && n === 2 ? 'reset' : 'answer'));
    closers.push(s.close);
    expect(await generate(s.url)).toBe('{"text":"ok"}');
    expect(await generate(s.url)).toBe('{"text":"ok"}');
    expect(s.seen()).toBe(3);
  });

  it('does not retry a reset on a fresh socket', async () => {
    const s = await serve(() => 'reset');
    closers.push(s.close);
    await expect(generate(s.url)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(s.seen()).toBe(1);
  });

  it('retries at most once: a serve that resets every reused request fails the call', async () => {
    // Only connection 1's first request is answered: the reused-socket reset is retried once, that retry is reset
    // too, and the call fails instead of looping.
    const s = await serve((conn, n) => (conn === 1 && n === 1 ? 'answer' : 'reset'));
    closers.push(s.close);
    expect(await generate(s.url)).toBe('{"text":"ok"}');
    await expect(generate(s.url)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(s.seen()).toBe(3);
  });
});
