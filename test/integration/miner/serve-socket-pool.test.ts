// Kept-alive /generate connections (serve-socket-pool.ts, issue 30): a clean answer leaves its
// connection for the next request to the same serve; anything else closes it; a kept connection
// the serve closed meanwhile costs one retry on a fresh one, never more; idle ones are dropped on
// the pool's clock, when the serve closes them, or when the serve sends bytes nobody asked for.
import net, { type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createServeAgents, destroyServeAgents, postGenerate, ServeHttpError } from '../../../electron/engine/miner/serve-http.ts';
import { ServeSocketPool, type ReservedConnection } from '../../../electron/engine/miner/serve-socket-pool.ts';
import { ManualClock } from '../../doubles/manual-clock.ts';

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 13\r\n\r\n{"text":"ok"}';

interface Conn {
  sock: Socket;
  /** Requests read on this connection, in order. */
  requests: string[];
  closed: boolean;
}

/** A TCP serve that reads any number of requests per connection and calls `answer` for each (n: its index on the connection). */
async function rawServe(answer: (sock: Socket, request: string, n: number, conn: Conn) => void) {
  const conns: Conn[] = [];
  const server = net.createServer((sock) => {
    const conn: Conn = { sock, requests: [], closed: false };
    conns.push(conn);
    sock.on('error', () => undefined);
    sock.on('close', () => (conn.closed = true));
    let buf = '';
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      for (;;) {
        const headEnd = buf.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, headEnd))?.[1] ?? 0);
        if (buf.length - headEnd - 4 < len) return;
        const request = buf.slice(0, headEnd + 4 + len);
        buf = buf.slice(request.length);
        conn.requests.push(request);
        answer(sock, request, conn.requests.length - 1, conn);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((r) => {
      for (const c of conns) c.sock.destroy();
      server.close(() => r());
    });
  closers.push(close);
  return { url: `http://127.0.0.1:${port}`, key: `127.0.0.1:${port}`, conns };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

function pool(o: ConstructorParameters<typeof ServeSocketPool>[0] = {}): ServeSocketPool {
  const p = new ServeSocketPool(o);
  closers.push(async () => p.destroy());
  return p;
}

async function generate(url: string, sockets: ServeSocketPool, signal?: AbortSignal, reserved?: ReservedConnection): Promise<string> {
  const agents = createServeAgents();
  const parts: Buffer[] = [];
  try {
    await postGenerate(url, { input_ids: [1, 2, 3], rid: 'r' }, agents.generate, (c) => void parts.push(Buffer.from(c)), { timeoutMs: 20_000, signal, sockets, reserved });
  } finally {
    destroyServeAgents(agents);
  }
  return Buffer.concat(parts).toString();
}

const WAIT = { timeout: 20_000, interval: 20 };

describe('kept-alive connections to an http: serve', () => {
  it('carries the next request on the connection a clean answer left, without `connection: close`', async () => {
    const s = await rawServe((sock) => sock.write(OK));
    const p = pool();
    expect(await generate(s.url, p)).toBe('{"text":"ok"}');
    expect(p.idleCount(s.key)).toBe(1);
    expect(await generate(s.url, p)).toBe('{"text":"ok"}');
    expect(await generate(s.url, p)).toBe('{"text":"ok"}');
    expect(s.conns).toHaveLength(1);
    expect(s.conns[0]!.requests).toHaveLength(3);
    expect(s.conns[0]!.requests[0]).not.toMatch(/connection:/i);
    expect(p.idleCount(s.key)).toBe(1);
  });

  it('reads a chunked answer and keeps the connection for the next', async () => {
    const s = await rawServe((sock) => sock.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n'));
    const p = pool();
    expect(await generate(s.url, p)).toBe('hello world');
    expect(await generate(s.url, p)).toBe('hello world');
    expect(s.conns).toHaveLength(1);
  });

  it.each([
    ['says `connection: close`', (sock: Socket) => sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive, CLOSE\r\n\r\nok')],
    ['ends its body with the connection', (sock: Socket) => sock.end('HTTP/1.1 200 OK\r\n\r\nok')],
    ['sends bytes after the end of its answer', (sock: Socket) => sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n')],
  ])('closes a connection whose answer %s', async (_, answer) => {
    const s = await rawServe(answer);
    const p = pool();
    expect(await generate(s.url, p)).toBe('ok');
    expect(p.idleCount(s.key)).toBe(0);
    await expect.poll(() => s.conns[0]!.closed, WAIT).toBe(true);
    expect(await generate(s.url, p)).toBe('ok');
    expect(s.conns).toHaveLength(2);
  });

  it('closes a connection after an error answer, and the error keeps the serve’s message', async () => {
    const body = '{"object":"error","message":"prompt too long"}';
    const s = await rawServe((sock) => sock.write(`HTTP/1.1 400 Bad Request\r\ncontent-length: ${body.length}\r\n\r\n${body}`));
    const p = pool();
    const err = await generate(s.url, p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServeHttpError);
    expect((err as Error).message).toContain('prompt too long');
    expect(p.idleCount(s.key)).toBe(0);
    await expect.poll(() => s.conns[0]!.closed, WAIT).toBe(true);
  });

  it('retries once on a fresh connection when the serve closed the kept one before answering', async () => {
    // The second request on a connection is met with a close, as uvicorn does to a socket whose idle time ran out.
    const s = await rawServe((sock, _req, n) => (n === 0 ? sock.write(OK) : sock.destroy()));
    const p = pool();
    expect(await generate(s.url, p)).toBe('{"text":"ok"}');
    expect(await generate(s.url, p)).toBe('{"text":"ok"}');
    expect(s.conns).toHaveLength(2);
    expect(s.conns[0]!.requests).toHaveLength(2);
    expect(s.conns[1]!.requests).toHaveLength(1);
  });

  it('retries at most once: a fresh connection closed before an answer fails the call with a sentence', async () => {
    let n = 0;
    const s = await rawServe((sock) => (n++ === 0 ? sock.write(OK) : sock.destroy()));
    const p = pool();
    await generate(s.url, p);
    await expect(generate(s.url, p)).rejects.toThrow('the serve closed the connection before the end of its answer');
    expect(s.conns).toHaveLength(2);
    expect(p.idleCount(s.key)).toBe(0);
  });

  it('does not retry a kept connection that failed after the answer began', async () => {
    const s = await rawServe((sock, _req, n) => (n === 0 ? sock.write(OK) : sock.end('HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\ntoo short')));
    const p = pool();
    await generate(s.url, p);
    await expect(generate(s.url, p)).rejects.toThrow('the serve closed the connection before the end of its answer');
    expect(s.conns).toHaveLength(1);
  });

  it('does not retry an aborted request, and closes its connection', async () => {
    const s = await rawServe((sock, _req, n) => {
      if (n === 0) sock.write(OK);
      // The second request is never answered.
    });
    const p = pool();
    await generate(s.url, p);
    const ac = new AbortController();
    const call = generate(s.url, p, ac.signal);
    await expect.poll(() => s.conns[0]!.requests.length, WAIT).toBe(2);
    ac.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await expect.poll(() => s.conns[0]!.closed, WAIT).toBe(true);
    expect(s.conns).toHaveLength(1);
    expect(p.idleCount(s.key)).toBe(0);
  });

  it('drops an idle connection when its time on the pool’s clock runs out', async () => {
    const clock = new ManualClock();
    const s = await rawServe((sock) => sock.write(OK));
    const p = pool({ clock, idleMs: 4_000, warmMs: 0 });
    await generate(s.url, p);
    await clock.advance(3_999);
    expect(p.idleCount(s.key)).toBe(1);
    await clock.advance(1);
    expect(p.idleCount(s.key)).toBe(0);
    await expect.poll(() => s.conns[0]!.closed, WAIT).toBe(true);
    await generate(s.url, p);
    expect(s.conns).toHaveLength(2);
    expect(clock.pending()).toBe(1);
  });

  it('keeps connections warm: each one timed out is replaced at once, for a minute after the serve’s last request', async () => {
    const clock = new ManualClock();
    const s = await rawServe((sock) => setTimeout(() => sock.write(OK), 20));
    const p = pool({ clock, idleMs: 4_000, warmMs: 60_000 });
    await Promise.all([generate(s.url, p), generate(s.url, p)]);
    expect(s.conns).toHaveLength(2);
    await clock.advance(4_000);
    // Both replaced: the serve has accepted two fresh connections, the old ones are closed.
    expect(p.idleCount(s.key)).toBe(2);
    await expect.poll(() => s.conns.length, WAIT).toBe(4);
    await expect.poll(() => s.conns[0]!.closed && s.conns[1]!.closed, WAIT).toBe(true);
    // A request after the pause rides a warm connection: nothing new is opened for it.
    await clock.advance(1_000);
    expect(await generate(s.url, p)).toBe('{"text":"ok"}');
    expect(s.conns).toHaveLength(4);
    expect(s.conns.filter((c) => c.requests.length > 0)).toHaveLength(3);
    // With no request for a minute, the replacements stop and the warm set decays to nothing.
    for (let t = 0; t < 70_000; t += 4_000) await clock.advance(4_000);
    expect(p.idleCount(s.key)).toBe(0);
    await expect.poll(() => s.conns.every((c) => c.closed), WAIT).toBe(true);
    const opened = s.conns.length;
    await clock.advance(60_000);
    expect(s.conns).toHaveLength(opened);
    expect(clock.pending()).toBe(0);
  });

  it('a request on a warm connection the serve closed meanwhile is retried once on a fresh one', async () => {
    const clock = new ManualClock();
    // The second connection (the warm replacement) is closed by the serve as the request reaches it.
    const s = await rawServe((sock, _req, _n, conn) => (s.conns.indexOf(conn) === 1 ? sock.destroy() : sock.write(OK)));
    const p = pool({ clock, idleMs: 4_000, warmMs: 60_000 });
    await generate(s.url, p);
    await clock.advance(4_000);
    await expect.poll(() => s.conns.length, WAIT).toBe(2);
    expect(await generate(s.url, p)).toBe('{"text":"ok"}');
    expect(s.conns).toHaveLength(3);
    expect(s.conns[1]!.requests).toHaveLength(1);
    expect(s.conns[2]!.requests).toHaveLength(1);
  });

  it('a warm connection the serve closes is not reopened (no reconnect loop)', async () => {
    const clock = new ManualClock();
    const s = await rawServe((sock) => sock.write(OK));
    const p = pool({ clock, idleMs: 4_000, warmMs: 60_000 });
    await generate(s.url, p);
    await clock.advance(4_000);
    await expect.poll(() => s.conns.length, WAIT).toBe(2);
    s.conns[1]!.sock.destroy();
    await expect.poll(() => p.idleCount(s.key), WAIT).toBe(0);
    await clock.advance(8_000);
    expect(s.conns).toHaveLength(2);
    expect(clock.pending()).toBe(0);
  });

  it('drops an idle connection the serve closes, or one it sends unasked bytes on', async () => {
    const s = await rawServe((sock) => sock.write(OK));
    const p = pool();
    await generate(s.url, p);
    await generate(s.url, p);
    s.conns[0]!.sock.end();
    await expect.poll(() => p.idleCount(s.key), WAIT).toBe(0);
    await generate(s.url, p);
    expect(s.conns).toHaveLength(2);
    s.conns[1]!.sock.write('HTTP/1.1 200 OK\r\n');
    await expect.poll(() => p.idleCount(s.key), WAIT).toBe(0);
    await expect.poll(() => s.conns[1]!.closed, WAIT).toBe(true);
  });

  it('keeps at most maxIdlePerServe connections, one idle list per serve, and destroy() closes them all', async () => {
    const a = await rawServe((sock) => setTimeout(() => sock.write(OK), 50));
    const b = await rawServe((sock) => sock.write(OK));
    const p = pool({ maxIdlePerServe: 2 });
    await Promise.all([generate(a.url, p), generate(a.url, p), generate(a.url, p)]);
    expect(a.conns).toHaveLength(3);
    expect(p.idleCount(a.key)).toBe(2);
    await generate(b.url, p);
    expect(p.idleCount(b.key)).toBe(1);
    p.destroy();
    expect(p.idleCount(a.key)).toBe(0);
    await expect.poll(() => a.conns.every((c) => c.closed) && b.conns.every((c) => c.closed), WAIT).toBe(true);
    // A pool that was destroyed keeps nothing more: each call closes its own connection.
    await generate(b.url, p);
    expect(p.idleCount(b.key)).toBe(0);
    await expect.poll(() => b.conns.every((c) => c.closed), WAIT).toBe(true);
  });
});

describe('a connection reserved as the request arrives', () => {
  it('is connected before the request is written, and carries it', async () => {
    const s = await rawServe((sock) => sock.write(OK));
    const p = pool();
    const reserved = p.reserve(s.url)!;
    await expect.poll(() => s.conns.length, WAIT).toBe(1);
    expect(s.conns[0]!.requests).toHaveLength(0);
    expect(await generate(s.url, p, undefined, reserved)).toBe('{"text":"ok"}');
    expect(s.conns).toHaveLength(1);
    expect(s.conns[0]!.requests).toHaveLength(1);
    // Taken once: giving it back afterwards does nothing; the pool keeps it from the clean answer.
    reserved.giveBack();
    expect(p.idleCount(s.key)).toBe(1);
    // The next reservation is that kept connection, not a new one.
    const again = p.reserve(s.url)!;
    expect(p.idleCount(s.key)).toBe(0);
    again.giveBack();
    expect(p.idleCount(s.key)).toBe(1);
    expect(s.conns).toHaveLength(1);
  });

  it('reserved for one serve and called on another: it goes back to its own serve’s list', async () => {
    const a = await rawServe((sock) => sock.write(OK));
    const b = await rawServe((sock) => sock.write(OK));
    const p = pool();
    const reserved = p.reserve(a.url)!;
    expect(await generate(b.url, p, undefined, reserved)).toBe('{"text":"ok"}');
    expect(p.idleCount(a.key)).toBe(1);
    expect(p.idleCount(b.key)).toBe(1);
    await expect.poll(() => a.conns.length, WAIT).toBe(1);
    expect(a.conns[0]!.requests).toHaveLength(0);
  });

  it('refused while the prompt was built: the call meets the real error, not a destroyed socket', async () => {
    const closed = await rawServe(() => undefined);
    const url = closed.url;
    await closers.pop()!();
    const p = pool();
    const reserved = p.reserve(url)!;
    await expect(generate(url, p, undefined, reserved)).rejects.toThrow('ECONNREFUSED');
    expect(p.idleCount(closed.key)).toBe(0);
  });

  it('a serve that talks on a reserved connection before the request loses it: the call opens another', async () => {
    const s = await rawServe((sock) => sock.write(OK));
    const p = pool();
    const reserved = p.reserve(s.url)!;
    await expect.poll(() => s.conns.length, WAIT).toBe(1);
    s.conns[0]!.sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nno');
    await expect.poll(() => s.conns[0]!.closed, WAIT).toBe(true);
    expect(await generate(s.url, p, undefined, reserved)).toBe('{"text":"ok"}');
    expect(s.conns).toHaveLength(2);
    expect(s.conns[0]!.requests).toHaveLength(0);
  });

  it('an https serve, an address that is not one, or a destroyed pool reserves nothing', () => {
    const p = pool();
    expect(p.reserve('https://127.0.0.1:1')).toBeNull();
    expect(p.reserve('not a url')).toBeNull();
    p.destroy();
    expect(p.reserve('http://127.0.0.1:1')).toBeNull();
  });
});
